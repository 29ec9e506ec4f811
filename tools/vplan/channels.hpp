// Channels: a producer op in one partition writes a buffer that ops in other partitions read. One channel per
// producer op, with every cross-partition reader as a consumer. OperandD: the channel feeds (or is fed by) an MMA
// that reads and writes the buffer as its accumulator. Barrier buffers carry no channels (they are sync).
#pragma once

#include <vector>

#include "tools/vplan/buffers.hpp"
#include "tools/vplan/op_order.hpp"
#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// Builds the channels and fills Buffer::channels and Buffer::operand_d.
std::vector<Channel> build_channels(std::vector<Buffer>& buffers, const std::vector<BufferAccess>& accesses,
                                    const OpOrder& order);

}  // namespace vtools::vplan
