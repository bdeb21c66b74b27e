// The report's three text forms: summary.md for people, JSON for programs, CSV for spreadsheets.
// In summary.md every text from the store goes through markdown_text (or markdown_code inside a
// code span): Markdown viewers render raw HTML, and a name is shown, never run.

#include "report/campaign_report.hpp"
#include "report/markup_text.hpp"
#include "report/tunable_values.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/number_text.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace warpforge::report {

namespace {

// Every figure reads as in every other view (foundation/vocabulary/number_text.hpp): "776 us", "5.56x", "45.2%".
std::string time_text(std::optional<double> seconds) { return seconds ? vocabulary::time_text(*seconds) : "-"; }

std::string speedup_text(std::optional<double> ratio) { return ratio ? vocabulary::speedup_text(*ratio) : "-"; }

std::string fraction_text(std::optional<double> ratio) { return ratio ? vocabulary::fraction_text(*ratio) : "-"; }

// "+1.20 ms" / "-3.10 us": a time difference with its sign.
std::string signed_time_text(std::optional<double> seconds) {
  if (!seconds)
    return "-";
  return (*seconds < 0 ? "-" : "+") + time_text(*seconds < 0 ? -*seconds : *seconds);
}

// A roofline gap (0 = at the peak, a plain ratio, not a percentage).
std::string gap_text(std::optional<double> gap) {
  if (!gap)
    return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", *gap);
  return buffer;
}

// What a cell holds for a figure that was not measured: never a number, and why once per row
// (`shown` collects the reasons already given in the row).
std::string not_measured_text(const std::string& why, std::vector<std::string>& shown) {
  if (why.empty() || std::find(shown.begin(), shown.end(), why) != shown.end())
    return "not measured";
  shown.push_back(why);
  return "not measured (" + markdown_text(why) + ")";
}

// A figure's text, or "not measured (why)" when it is absent.
template <class Figure>
std::string figure_text(const Figure& text, std::optional<double> value, const std::string& why,
                        std::vector<std::string>& shown) {
  return value ? text(value) : not_measured_text(why, shown);
}

std::string utc_text(double unix_seconds) {
  if (unix_seconds <= 0)
    return "-";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &tm);
  return buffer;
}

std::string outcome_text(const branch_entry& b) {
  return b.row.outcome ? std::string{vocabulary::to_string(*b.row.outcome)} : "pending";
}

// The headline's baseline | best | speed-up | peak fraction cells of a job.
std::string headline_figures(const job_entry& job) {
  std::vector<std::string> shown;
  const auto& why = job.not_measured;
  const auto time = [](std::optional<double> v) { return time_text(v); };
  std::string out = figure_text(time, job.row.baseline_time_s, why.baseline_time_s, shown) + " | ";
  out += figure_text(time, job.row.best_time_s, why.best_time_s, shown) + " | ";
  out += figure_text([](std::optional<double> v) { return speedup_text(v); }, job.speedup, why.speedup,
                     shown) + " | ";
  return out + figure_text([](std::optional<double> v) { return fraction_text(v); }, job.peak_fraction,
                           why.peak_fraction, shown);
}

std::string champion_text(const iteration_entry& it) {
  std::vector<std::string> shown;
  return figure_text([](std::optional<double> v) { return time_text(v); }, it.champion_time_s,
                     it.champion_not_measured, shown);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : ", ") + markdown_text(item);
  return out.empty() ? "-" : out;
}

// Candidates per GPU-hour and where each GPU's wall time went (docs/report.md, "Throughput").
std::string throughput_markdown(const campaign_throughput& t) {
  std::ostringstream md;
  md << "\n## Throughput\n\n";
  const auto per_hour = t.per_gpu_hour();
  if (!per_hour) {
    md << "Not measured (" << markdown_text(t.not_measured_reason.empty() ? "no time recorded" : t.not_measured_reason)
       << ").\n";
    return md.str();
  }
  md << t.measured << " candidates measured in " << time_text(t.wall_s) << " on " << t.gpu_count << " GPU(s): "
     << static_cast<std::uint64_t>(*per_hour + 0.5) << " per GPU-hour.\n\n"
     << "| GPU | races | profiles | measured | busy (kernels) | set-up | profiles | idle or waiting |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  auto share = [&](double s) { return fraction_text(t.wall_s > 0 ? s / t.wall_s : 0); };
  for (const auto& g : t.gpus)
    md << "| " << g.gpu << " | " << g.races << " | " << g.profiles << " | " << g.measured << " | "
       << share(g.kernel_s) << " | " << share(std::max(0.0, g.race_lease_s - g.kernel_s)) << " | "
       << share(g.profile_s) << " | " << share(std::max(0.0, t.wall_s - g.race_lease_s - g.profile_s)) << " |\n";
  md << "\nShares of the campaign's wall time; busy is kernel time over wall time. Idle or waiting "
        "includes waiting for compiles, which only the end of `warpforge run` tells apart.\n";
  return md.str();
}

} // namespace

std::string render_markdown(const campaign_report& report) {
  std::ostringstream md;
  md << "# " << markdown_text(report.campaign.name) << "\n\n"
     << "State: **" << vocabulary::to_string(report.campaign.state) << "**"
     << (report.campaign.reason.empty() ? "" : " — " + markdown_text(report.campaign.reason)) << "  \n"
     << "Started " << utc_text(report.campaign.created_at) << " UTC, last update "
     << utc_text(report.campaign.updated_at) << " UTC  \n"
     << "Spec: `" << markdown_code(report.campaign.spec_path) << "`\n\n";

  md << "## Headline\n\n| job | state | baseline | best | speed-up | peak fraction | iterations |\n"
     << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& job : report.jobs)
    md << "| " << markdown_text(job.row.name) << " | " << vocabulary::to_string(job.row.state) << " | "
       << headline_figures(job) << " | "
       << job.row.iterations_done << " |\n";
  md << "\nPeak fraction: the best kernel's achieved rate on the axis that binds it (compute "
        "when its FLOP per DRAM byte reaches the ridge point, else DRAM bandwidth), against that "
        "axis's peak for the precision it computes in; each job says which.\n";
  md << llm_markdown(report.llm, "##");
  md << throughput_markdown(report.throughput);

  for (const auto& job : report.jobs) {
    md << "\n## " << markdown_text(job.row.name) << "\n\n";
    if (job.peak)
      md << "Peak fraction: " << markdown_text(describe(*job.peak)) << ".\n\n";
    // What binds the latest profiled kernel, by level (L1, L2, DRAM, a pipe, or latency).
    for (auto it = job.iterations.rbegin(); it != job.iterations.rend(); ++it)
      if (!it->gaps.binding_headline.empty()) {
        md << "Bottleneck (iteration " << it->row.number << "): " << markdown_text(it->gaps.binding_headline)
           << ".\n\n";
        break;
      }
    if (!job.row.reason.empty())
      md << "Note: " << markdown_text(job.row.reason) << "\n\n";
    md << "![speed-up per iteration](" << chart_file_name(job.row.name, "speedup") << ") "
       << "![roofline position](" << chart_file_name(job.row.name, "roofline") << ")\n\n";
    md << "### Timeline\n\n| iteration | state | started (UTC) | branches | champion time | Δc | Δm | Δl | near peak |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& it : job.iterations)
      md << "| " << it.row.number << " | " << vocabulary::to_string(it.row.state) << " | "
         << utc_text(it.row.started_at) << " | " << it.branches.size() << " | "
         << champion_text(it) << " | " << gap_text(it.gaps.compute) << " | "
         << gap_text(it.gaps.memory) << " | " << gap_text(it.gaps.latency)
         << " | " << (it.gaps.near_peak ? (*it.gaps.near_peak ? "yes" : "no") : "-") << " |\n";
    md << "\nThe gaps (Δc compute, Δm memory, Δl latency; 0 = at the peak) per iteration are the "
          "bottleneck drift; \"-\": not measured (no profile recorded for that iteration).\n";

    md << llm_markdown(job.llm, "###");

    md << "\n### Methods\n\n";
    if (job.methods.empty())
      md << "No ablations recorded.\n";
    else {
      md << "| iteration | method | attribution | verdict |\n| --- | --- | --- | --- |\n";
      for (const auto& m : job.methods)
        md << "| " << m.iteration << " | " << markdown_text(m.method) << " | "
           << signed_time_text(m.attribution_s)
           << " | " << markdown_text(m.verdict) << " |\n";
    }

    md << "\n### Attempts\n\n| iteration | branch | kind | outcome | methods | defines | best time | detail |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& it : job.iterations)
      for (const auto& b : it.branches) {
        auto detail = b.row.detail.substr(0, b.row.detail.find('\n'));
        if (detail.size() > 120)
          detail = detail.substr(0, 120) + "...";
        md << "| " << it.row.number << " | " << b.row.ordinal << " | " << vocabulary::to_string(b.row.kind)
           << " | " << outcome_text(b) << " | " << joined(b.methods) << " | `" << markdown_code(b.row.defines_json)
           << "` | " << (b.best_time_s ? time_text(b.best_time_s) : std::string{"not measured"}) << " | "
           << markdown_text(detail) << " |\n";
      }
  }
  return md.str();
}

std::string render_json(const campaign_report& report) {
  json::writer out;
  auto optional_number = [&](std::string_view key, std::optional<double> v) {
    out.key(key);
    if (v)
      out.value(*v);
    else
      out.null();
  };
  // What was not measured is null, with the reason beside it: a text for one figure, an object
  // of figure -> reason where an entry has several; null when everything was measured.
  auto reason_or_null = [&](std::string_view key, const std::string& why) {
    out.key(key);
    why.empty() ? out.null() : out.value(why);
  };
  auto job_reasons = [&](const job_not_measured& why) {
    out.key("not_measured_reason");
    const std::pair<std::string_view, const std::string*> figures[] = {
      {"baseline_time_s", &why.baseline_time_s}, {"best_time_s", &why.best_time_s},
      {"speedup", &why.speedup}, {"peak_fraction", &why.peak_fraction}};
    bool any = false;
    for (const auto& [key, text] : figures)
      any = any || !text->empty();
    if (!any) {
      out.null();
      return;
    }
    out.begin_object();
    for (const auto& [key, text] : figures)
      if (!text->empty())
        out.key(key).value(*text);
    out.end_object();
  };
  out.begin_object();
  out.key("campaign").value(report.campaign.name);
  out.key("state").value(vocabulary::to_string(report.campaign.state));
  out.key("reason").value(report.campaign.reason);
  out.key("run_dir").value(report.run_dir.string());
  out.key("jobs").begin_array();
  for (const auto& job : report.jobs) {
    out.begin_object();
    out.key("name").value(job.row.name);
    out.key("state").value(vocabulary::to_string(job.row.state));
    optional_number("baseline_time_s", job.row.baseline_time_s);
    optional_number("best_time_s", job.row.best_time_s);
    optional_number("speedup", job.speedup);
    optional_number("peak_fraction", job.peak_fraction);
    job_reasons(job.not_measured);
    if (job.peak)
      out.key("peak").begin_object().key("axis").value(job.peak->axis).key("achieved")
        .value(job.peak->achieved).key("peak").value(job.peak->peak).key("peak_name")
        .value(job.peak->peak_name).key("basis").value(job.peak->basis).end_object();
    out.key("iterations").begin_array();
    for (const auto& it : job.iterations) {
      out.begin_object();
      out.key("number").value(it.row.number);
      out.key("state").value(vocabulary::to_string(it.row.state));
      optional_number("champion_time_s", it.champion_time_s);
      reason_or_null("champion_not_measured_reason", it.champion_not_measured);
      optional_number("gap_compute", it.gaps.compute);
      optional_number("gap_memory", it.gaps.memory);
      optional_number("gap_latency", it.gaps.latency);
      reason_or_null("gaps_not_measured_reason", it.gaps_not_measured);
      out.key("bottleneck");
      if (it.gaps.binding_kind.empty())
        out.null();
      else
        out.begin_object().key("kind").value(it.gaps.binding_kind).key("text").value(it.gaps.binding_headline)
          .end_object();
      out.key("branches").begin_array();
      for (const auto& b : it.branches) {
        out.begin_object();
        out.key("ordinal").value(b.row.ordinal);
        out.key("kind").value(vocabulary::to_string(b.row.kind));
        out.key("outcome").value(outcome_text(b));
        out.key("methods").raw(b.row.methods_json);
        out.key("defines").raw(b.row.defines_json);
        optional_number("best_time_s", b.best_time_s);
        reason_or_null("not_measured_reason", b.time_not_measured);
        out.key("detail").value(b.row.detail);
        out.end_object();
      }
      out.end_array();
      out.end_object();
    }
    out.end_array();
    out.key("methods").begin_array();
    for (const auto& m : job.methods) {
      out.begin_object();
      out.key("iteration").value(m.iteration);
      out.key("method").value(m.method);
      optional_number("attribution_s", m.attribution_s);
      out.key("verdict").value(m.verdict); // "not_measured" says why attribution_s is null
      out.end_object();
    }
    out.end_array();
    if (!job.llm.empty())
      out.key("llm").raw(llm_json(job.llm));
    out.end_object();
  }
  out.end_array();
  if (!report.llm.empty())
    out.key("llm").raw(llm_json(report.llm));
  // docs/report.md, "Throughput": seconds and counts; null with the reason when not measured.
  const auto& t = report.throughput;
  out.key("throughput").begin_object();
  optional_number("candidates_per_gpu_hour", t.per_gpu_hour());
  reason_or_null("not_measured_reason", t.not_measured_reason);
  out.key("measured").value(t.measured);
  out.key("wall_s").value(t.wall_s);
  out.key("gpu_count").value(static_cast<std::uint64_t>(t.gpu_count));
  out.key("gpus").begin_array();
  for (const auto& g : t.gpus) {
    out.begin_object();
    out.key("gpu").value(static_cast<std::int64_t>(g.gpu));
    out.key("races").value(g.races).key("profiles").value(g.profiles).key("measured").value(g.measured);
    out.key("kernel_s").value(g.kernel_s).key("race_lease_s").value(g.race_lease_s).key("profile_s").value(g.profile_s);
    out.end_object();
  }
  out.end_array();
  out.end_object();
  out.end_object();
  return std::move(out).str();
}

std::string render_csv(const campaign_report& report) {
  auto quoted = [](std::string text) {
    std::string out = "\"";
    for (char c : text)
      out += c == '"' ? std::string{"\"\""} : std::string{c};
    return out + "\"";
  };
  // After the fixed columns: one per tunable ("tunable:BLOCK", its value, empty where a branch
  // does not set it) and one per claimed method ("method:smem_tiling", 1 claimed, 0 not), so a
  // spreadsheet or pandas pivots on them without parsing the JSON columns.
  const auto columns = column_names_of(report);
  std::ostringstream csv;
  // A branch without a measurement has empty figures (never 0) and says why in not_measured_reason.
  csv << "job,iteration,branch,kind,outcome,methods,defines,gpu,gpu_name,mode,median_s,cv,ci95_low_s,"
         "ci95_high_s,samples,not_measured_reason";
  for (const auto& name : columns.tunables)
    csv << "," << quoted("tunable:" + name);
  for (const auto& name : columns.methods)
    csv << "," << quoted("method:" + name);
  csv << "\n";
  for (const auto& job : report.jobs)
    for (const auto& it : job.iterations)
      for (const auto& b : it.branches) {
        const std::string head = quoted(job.row.name) + "," + std::to_string(it.row.number) + "," +
                                 std::to_string(b.row.ordinal) + "," +
                                 std::string{vocabulary::to_string(b.row.kind)} + "," + outcome_text(b) + "," +
                                 quoted(b.row.methods_json) + "," + quoted(b.row.defines_json) + ",";
        const auto values = tunable_values(b.row.defines_json);
        std::string tail;
        for (const auto& name : columns.tunables) {
          auto v = std::find_if(values.begin(), values.end(), [&](const auto& t) { return t.name == name; });
          tail += "," + (v == values.end() ? std::string{} : v->is_number ? v->text : quoted(v->text));
        }
        for (const auto& name : columns.methods)
          tail += std::find(b.methods.begin(), b.methods.end(), name) != b.methods.end() ? ",1" : ",0";
        if (b.measurements.empty())
          csv << head << ",,,,,,,," << quoted(b.time_not_measured) << tail << "\n";
        for (const auto& m : b.measurements)
          csv << head << m.gpu << "," << quoted(m.gpu_name) << "," << vocabulary::to_string(m.mode) << ","
              << m.median_s << "," << m.cv << "," << m.ci95_low_s << "," << m.ci95_high_s << ","
              << m.samples << "," << tail << "\n";
      }
  return csv.str();
}

} // namespace warpforge::report
