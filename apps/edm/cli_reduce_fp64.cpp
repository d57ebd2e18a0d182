// tdmaps-edm --reduce in fp64 (cli_reduce.hpp).
#include "cli_reduce.hpp"

namespace tdmaps {
namespace edm_cli {

template int run_reduce_mode<double>(Run<double>&);

}  // namespace edm_cli
}  // namespace tdmaps
