// tdmaps-edm --reduce in fp32 (cli_reduce.hpp).
#include "cli_reduce.hpp"

namespace tdmaps {
namespace edm_cli {

template int run_reduce_mode<float>(Run<float>&);

}  // namespace edm_cli
}  // namespace tdmaps
