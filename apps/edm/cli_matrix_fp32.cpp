// tdmaps-edm's matrix mode in fp32 (cli_matrix.hpp).
#include "cli_matrix.hpp"

namespace tdmaps {
namespace edm_cli {

template int run_matrix<float>(Run<float>&);

}  // namespace edm_cli
}  // namespace tdmaps
