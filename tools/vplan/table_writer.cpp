#include "tools/vplan/table_writer.hpp"

#include <string>

#include "formats/plan/budget_figures.hpp"
#include "libcommon/table.hpp"

namespace vtools::vplan {

namespace {

std::string interval(const Buffer& b) { return "[" + std::to_string(b.start) + "-" + std::to_string(b.end) + ")"; }

std::string channel_list(const Buffer& b) {
  std::string out;
  for (int c : b.channels) out += (out.empty() ? "" : ", ") + std::string("ch") + std::to_string(c);
  return out.empty() ? "-" : out;
}

std::string kind(const Buffer& b) { return b.is_scratch() ? "scratch " + b.scratch_op : "alloc"; }

// The compiler's offsets ("98304", "0/1024" for one per partition), else vplan's own marked '*'.
std::string offsets(const Buffer& b) {
  if (b.compiler_offsets.empty()) return std::to_string(b.offset) + "*";
  std::string out;
  for (auto o : b.compiler_offsets) out += (out.empty() ? "" : "/") + std::to_string(o);
  return out;
}

// TMEM lane offset: the compiler's tensor_memory_row_offset, else vplan's own marked '*'.
std::string row_offset(const Buffer& b) {
  return b.compiler_row_offset >= 0 ? std::to_string(b.compiler_row_offset) : std::to_string(b.row_offset) + "*";
}

// The WS planner's reuse group and copies ("id 2 x3 +64"), "-" when the IR has none.
std::string reuse(const Buffer& b) {
  if (b.planner_id < 0) return "-";
  return "id " + std::to_string(b.planner_id) + (b.planner_copy > 0 ? " x" + std::to_string(b.planner_copy) : "") +
         (b.planner_offset >= 0 ? " +" + std::to_string(b.planner_offset) : "");
}

std::string partition_name(int p) { return p == kNoPartition ? "-" : std::to_string(p); }

void emit(const Table& t, TableStyle style, std::ostream& out) {
  if (style == TableStyle::kMarkdown) write_markdown_table(t, out);
  else write_text_table(t, out);
}

void heading(const std::string& title, TableStyle style, std::ostream& out) {
  out << "\n" << (style == TableStyle::kMarkdown ? "### " : "") << title << "\n";
  if (style == TableStyle::kMarkdown) out << "\n";
}

}  // namespace

void write_tables(const Plan& plan, TableStyle style, std::ostream& out) {
  const Summary& s = plan.summary;
  // An imported plan (the planner's dumps) knows no target or warps: say what is known, not "(, 0 warps".
  std::string facts;
  if (!plan.kernel.target.empty()) facts += plan.kernel.target + ", ";
  if (plan.kernel.num_warps > 0)
    facts += std::to_string(plan.kernel.num_warps) + " warps, " + std::to_string(plan.kernel.total_warps) + " in all, ";
  out << (style == TableStyle::kMarkdown ? "## " : "") << "kernel " << plan.kernel.name << " (" << facts
      << plan.partitions.size() << " partitions, " << plan.ops.size() << " ops)\n";

  Table smem;
  // Offset: the compiler's when the IR carries it, else vplan's own; "vplan" is vplan's own placement beside it.
  smem.headers = {"Name", "BufferID", "Size", "Kind", "Channels", "Liveness", "Offset", "vplan", "Reuse"};
  smem.align = {Table::Align::kLeft,  Table::Align::kLeft,  Table::Align::kRight,
                Table::Align::kLeft,  Table::Align::kLeft,  Table::Align::kLeft,
                Table::Align::kRight, Table::Align::kRight, Table::Align::kLeft};
  Table tmem;  // Column / Row: the compiler's when the IR carries them, else vplan's own; "vplan" beside them
  tmem.headers = {"Name", "Size", "Channels", "Liveness", "OperandD", "Column", "Row", "vplan"};
  tmem.align = {Table::Align::kLeft, Table::Align::kLeft,  Table::Align::kLeft,  Table::Align::kLeft,
                Table::Align::kRight, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight};
  for (const Buffer& b : plan.buffers) {
    if (b.space == MemorySpace::kSmem)
      smem.add_row({b.name + (b.barrier ? " (barrier)" : ""), "B" + std::to_string(b.id),
                    std::string(b.size_exact ? "" : "<=") + std::to_string(b.bytes), kind(b), channel_list(b),
                    interval(b), offsets(b), std::to_string(b.offset), reuse(b)});
    else
      tmem.add_row({b.name, b.rows > 0 ? std::to_string(b.rows) + "x" + std::to_string(b.cols) : "-",
                    channel_list(b), interval(b), std::to_string(b.operand_d), offsets(b), row_offset(b),
                    std::to_string(b.offset) + (b.row_offset ? " r" + std::to_string(b.row_offset) : "")});
  }
  heading("SMEM buffers", style, out);
  emit(smem, style, out);
  if (!tmem.rows.empty()) {
    heading("TMEM allocations", style, out);
    emit(tmem, style, out);
  }
  if (!plan.channels.empty()) {
    Table ch;
    ch.headers = {"Channel", "Buffer", "Space", "Producer", "Consumers", "OperandD"};
    for (const Channel& c : plan.channels) {
      std::string consumers;
      for (const auto& e : c.consumers)
        consumers += (consumers.empty() ? "" : ", ") + std::string("op ") + std::to_string(e.op) + " (P" +
                     partition_name(e.partition) + ")";
      ch.add_row({"ch" + std::to_string(c.id), "B" + std::to_string(c.buffer) + " " + plan.buffers[c.buffer].name,
                  std::string(space_name(c.space)),
                  "op " + std::to_string(c.producer.op) + " (P" + partition_name(c.producer.partition) + ")",
                  consumers, c.operand_d ? "yes" : "-"});
    }
    heading("Channels", style, out);
    emit(ch, style, out);
  }
  heading("Budget", style, out);
  Table budget;  // the figures by the names every output prints (formats/plan/budget_figures.hpp)
  budget.headers = {"Figure", "Value"};
  for (const BudgetFigure& f : budget_figures(s)) budget.add_row({f.name, f.value});
  emit(budget, style, out);
  for (const auto& n : s.notes) out << (style == TableStyle::kMarkdown ? "\n- " : "note: ") << n << "\n";
  for (const auto& h : plan.reuse_hazards)
    out << (style == TableStyle::kMarkdown ? "\n- " : "") << reuse_hazard_text(plan, h) << "\n";
}

std::string reuse_hazard_text(const Plan& plan, const ReuseHazard& h) {
  auto use = [&](int buffer, int op, int partition, const char* which) {
    const Buffer& b = plan.buffers[buffer];
    const std::string op_name = op >= 0 && op < static_cast<int>(plan.ops.size()) ? plan.ops[op].name : "?";
    return b.name + " (B" + std::to_string(b.id) + ", " + which + " by " + op_name + " op " + std::to_string(op) +
           " in " + (partition == kNoPartition ? std::string("no partition") : "P" + partition_name(partition)) + ")";
  };
  return plan.kernel.name + ": reuse hazard in " + h.group + ": " + use(h.first, h.first_op, h.first_partition, "last used") +
         " and " + use(h.second, h.second_op, h.second_partition, "first used") +
         " are not ordered by program order or an mbarrier arrive -> wait chain";
}

bool write_check_report(const Plan& plan, std::ostream& out) {
  const Summary& s = plan.summary;
  auto names = [&](const std::vector<int>& ids) {
    std::string o;
    for (int id : ids) {
      const Buffer& b = plan.buffers[id];
      o += "  " + b.name + " B" + std::to_string(b.id) + " " + interval(b) + " " +
           (b.space == MemorySpace::kSmem ? std::to_string(b.bytes) + " bytes"
                                          : std::to_string(b.cols) + " columns") + "\n";
    }
    return o;
  };
  const bool smem_ok = s.smem_total_min_bytes <= s.smem_limit_bytes;  // the verdict's figure: the low end
  const bool tmem_ok = tmem_total_cols(s) <= s.tmem_limit_cols;
  const auto triton = triton_shared(s);
  out << plan.kernel.name << ": SMEM total " << smem_total_text(s) << " / limit " << s.smem_limit_bytes << " B "
      << (smem_ok ? "ok" : "OVER") << (triton ? " (Triton's shared " + std::to_string(*triton) + " B)" : "")
      << "; TMEM total " << tmem_total_cols(s) << " cols / limit " << s.tmem_limit_cols << " cols "
      << (tmem_ok ? "ok" : "OVER")
      << (s.compiler_tmem_cols ? " (Triton's TMEM; vplan's own " + std::to_string(s.tmem_allocated_cols) + " cols)"
                               : "")
      << "\n";
  if (!smem_ok) out << "SMEM " << smem_peak_set_text(s) << ":\n" << names(s.smem_live_at_peak);
  if (!tmem_ok) out << "TMEM live at the peak (op " << s.tmem_peak_op << "):\n" << names(s.tmem_live_at_peak);
  for (const ReuseHazard& h : plan.reuse_hazards) out << reuse_hazard_text(plan, h) << "\n";
  return smem_ok && tmem_ok && plan.reuse_hazards.empty();
}

}  // namespace vtools::vplan
