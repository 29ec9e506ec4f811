// A RankSummary (rank_summary.hpp) as tables: the headline, per rank, stragglers, the collectives with the largest
// skew. Shared so `vtrace summary --ranks` and vrender's trace page show the same rows.
#pragma once

#include <string>

#include "formats/trace/rank_summary.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

/// At most this many collectives are listed, largest skew first.
inline constexpr std::size_t kRankCollectiveRows = 20;

struct RankTables {
  /// "2 ranks, 3 collectives matched (6 NCCL kernels, 0 unmatched); arrival skew median ...", or with none matched
  /// "1 rank, no collectives matched (...): no arrival skew to show"
  std::string headline;
  Table ranks;           ///< per rank: launches, span, busy, compute, collective, overlap, idle, waited
  Table stragglers;      ///< ranks most often last first
  Table collectives;     ///< the kRankCollectiveRows with the largest skew; no rows when none matched
};

RankTables rank_summary_tables(const RankSummary& summary);

}  // namespace vtools::vtrace
