// tdmaps-edm's matrix mode in fp64 (cli_matrix.hpp).
#include "cli_matrix.hpp"

namespace tdmaps {
namespace edm_cli {

template int run_matrix<double>(Run<double>&);

}  // namespace edm_cli
}  // namespace tdmaps
