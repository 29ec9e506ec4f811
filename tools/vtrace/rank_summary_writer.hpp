// Writes a RankSummary (rank_summary.hpp) as JSON or as text/Markdown tables: ranks, stragglers, the collectives
// with the largest skew.
#pragma once

#include <ostream>

#include "libcommon/document.hpp"
#include "formats/trace/rank_summary.hpp"

namespace vtools::vtrace {

/// {"summary_of": "vtools.trace ranks", rank_source, ranks[], stragglers[], collectives[], skew_*_ns, ...}
/// (tests/data/vtrace/rank-summary.schema.json).
OrderedJson rank_summary_to_json(const RankSummary& summary);

/// Tables in this order: per rank, stragglers, the 20 collectives with the largest skew; notes last.
void write_rank_summary_tables(const RankSummary& summary, bool markdown, std::ostream& out);

}  // namespace vtools::vtrace
