// The validation set: every run of validation/runs.json (validation/make_scenarios.py writes it from the published runs
// of published_runs.json, the 2021-2022 Megatron tables, and the Hugging Face models measured on an H200), its scenario
// evaluated and its step set against the published one. Writes docs/validation.md (the table, by run and by framework)
// and checks assets/expected_error.json, the regimes' errors and the MFU ceilings evaluate reads, against the same
// figures: `SHARDSCOPE_UPDATE_VALIDATION=1 build/shardscope_tests "[validation-set]"` rewrites the asset when the model
// moved. Nothing here is fitted: a run is set up from its own source, the model from its own tables.
#include "core/cost/kernels/flops.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/expected_error.h"
#include "core/cost/report/scaling.h"
#include "core/model/format.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
    std::string id, family, framework, gpu, regime;
    double published_seconds = 0, modelled_seconds = 0, error = 0;
    int gpus = 0;
    double published_mfu = 0, modelled_mfu = 0;  // the model's MFU definition at the published and the modelled step
    double evaluated_mfu = 0;                    // what evaluate reports, held under the shipped asset's ceilings
    double unheld_seconds = 0;                   // the modelled step before any MFU ceiling holds it
    double model_flops = 0, peak_flops_per_s = 0;// per step; all its GPUs' peak
    bool fp8 = false;
    bool held = false;                           // held to the best MFU the other runs published
    std::string ceiling;                         // core::mfu_ceiling_key: the program its MFU is published for
    const std::string& ceiling_key() const { return ceiling; }
    double peak_allocated = 0, peak_reserved = 0, modelled_allocated = 0, modelled_reserved = 0;  // measured runs only
};

std::string source_file(const std::string& path) {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/" + path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

const std::vector<Row>& rows() {
    static const std::vector<Row> all = [] {
        std::vector<Row> out;
        const nlohmann::json runs = nlohmann::json::parse(source_file("validation/runs.json"));
        for (const nlohmann::json& run : runs["runs"]) {
            const core::Scenario scenario = core::parse_scenario(run["scenario"].dump());
            const core::Report report = core::evaluate(scenario);
            Row row;
            row.id = run["id"];
            row.family = run["family"];
            row.framework = core::framework_name(scenario.train.framework);
            row.gpu = scenario.cluster.gpu.id;
            row.regime = core::regime_of(scenario).name();
            row.published_seconds = run["published_step_seconds"];
            row.gpus = scenario.cluster.gpus;
            row.unheld_seconds = report.compute.modelled_step_seconds;
            row.model_flops = report.compute.model_flops_per_step;
            row.peak_flops_per_s = report.compute.peak_flops_per_s * report.layout.gpus;
            row.published_mfu = row.model_flops / (row.published_seconds * row.peak_flops_per_s);
            row.fp8 = report.compute.fp8_gemms;
            row.ceiling = core::mfu_ceiling_key(scenario, row.fp8);
            row.evaluated_mfu = report.compute.mfu;
            if (run.contains("peak_allocated_bytes")) {
                row.peak_allocated = run["peak_allocated_bytes"];
                row.peak_reserved = run["peak_reserved_bytes"];
                row.modelled_allocated = report.memory.peak_allocated_bytes;
                row.modelled_reserved = report.memory.peak_reserved_bytes;
            }
            out.push_back(row);
        }
        // Each run held to the best MFU the others published for its framework and GPU, as evaluate holds an unseen
        // layout: its own published MFU is not a ceiling it may be checked against.
        for (Row& row : out) {
            double ceiling = 0;
            for (const Row& other : out) {
                if (&other != &row && other.ceiling_key() == row.ceiling_key()) ceiling = std::max(ceiling, other.published_mfu);
            }
            row.modelled_seconds = core::step_within_ceiling_seconds(row.unheld_seconds, row.model_flops, row.peak_flops_per_s, ceiling);
            row.held = row.modelled_seconds > row.unheld_seconds;
            row.error = row.modelled_seconds / row.published_seconds - 1.0;
            row.modelled_mfu = row.model_flops / (row.modelled_seconds * row.peak_flops_per_s);
        }
        return out;
    }();
    return all;
}

// A fine-tuning run (runs.json finetune_runs): its published step and peak where given, against the modelled ones.
struct FinetuneRow {
    std::string id, family, method, gpu, peak_kind, regime;
    double published_seconds = 0, modelled_seconds = 0;      // 0: the source gives no step (or no tokens/s per GPU)
    double published_peak = 0, modelled_allocated = 0;       // the published peak against the modelled allocated one
    double published_reserved = 0, modelled_reserved = 0;    // measured runs: the reserved peak too
    bool adapters() const { return method != "full"; }
    double step_error() const { return modelled_seconds / published_seconds - 1.0; }
    double peak_error() const { return modelled_allocated / published_peak - 1.0; }
    double reserved_error() const { return modelled_reserved / published_reserved - 1.0; }
};

const std::vector<FinetuneRow>& finetune_rows() {
    static const std::vector<FinetuneRow> all = [] {
        std::vector<FinetuneRow> out;
        const nlohmann::json runs = nlohmann::json::parse(source_file("validation/runs.json"));
        for (const nlohmann::json& run : runs["finetune_runs"]) {
            const core::Scenario scenario = core::parse_scenario(run["scenario"].dump());
            const core::Report report = core::evaluate(scenario);
            FinetuneRow row;
            row.id = run["id"];
            row.family = run["family"];
            row.method = run["method"];
            row.gpu = scenario.cluster.gpu.id;
            row.regime = core::regime_of(scenario).name();
            row.modelled_seconds = report.compute.step_seconds;
            row.modelled_allocated = report.memory.peak_allocated_bytes;
            row.modelled_reserved = report.memory.peak_reserved_bytes;
            if (!run["published_step_seconds"].is_null()) row.published_seconds = run["published_step_seconds"];
            if (!run["published_peak_bytes"].is_null()) {
                row.published_peak = run["published_peak_bytes"];
                row.peak_kind = run["peak_kind"];
            }
            if (run.contains("peak_reserved_bytes")) row.published_reserved = run["peak_reserved_bytes"];
            out.push_back(row);
        }
        return out;
    }();
    return all;
}

// The fine-tuning family the model is still pessimistic on: NeMo AutoModel's LoRA runs, set up with its own Llama's recipe
// (assets/frameworks/nemo-automodel-llama.json: one QKV and one gate-up projection, Triton LoRA kernels) come out 20-25 %
// slow, and their modelled peak is over the 80 GB they ran in; its table's kernel column says "TE + triton", kernels
// this recipe does not have (the norms and RoPE are transformers' eager ones here).
bool known_gap(const FinetuneRow& row) { return row.family.rfind("nemo-automodel", 0) == 0; }

struct Stats {
    int runs = 0;
    double sum_abs = 0, sum = 0, worst = 0;
    void add(double error) {
        ++runs;
        sum_abs += std::fabs(error);
        sum += error;
        worst = std::max(worst, std::fabs(error));
    }
    double mean_abs() const { return runs ? sum_abs / runs : 0; }
    double mean() const { return runs ? sum / runs : 0; }
};

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100.0 * fraction);
    return text;
}

// The asset evaluate reads: each regime's error, and the best published MFU per framework and GPU.
nlohmann::ordered_json expected_error_asset() {
    std::map<std::string, Stats> regimes;
    std::map<std::string, std::pair<double, std::string>> ceilings;
    for (const Row& row : rows()) {
        regimes[row.regime].add(row.error);
        const std::string key = row.ceiling_key();
        if (row.published_mfu > ceilings[key].first) ceilings[key] = {row.published_mfu, row.id};
    }
    // Fine-tunes' steps count in their regime's error too (not in the MFU ceilings: an adapter's step has other FLOPs),
    // the known gap's included: a scenario of its framework is told how far off the model is there.
    for (const FinetuneRow& row : finetune_rows()) {
        if (row.published_seconds > 0) regimes[row.regime].add(row.step_error());
    }
    nlohmann::ordered_json asset;
    asset["about"] = "Written by tests/test_validation_set.cpp from validation/runs.json: do not edit. regimes: the model's step "
                     "error over the validation runs (training and fine-tuning) of each framework / GPU generation / scale; mfu_ceilings: the best MFU "
                     "published for each framework on each GPU (its step against the model's FLOPs), which evaluate holds every "
                     "layout under.";
    nlohmann::ordered_json by_regime = nlohmann::ordered_json::object();
    for (const auto& [name, stats] : regimes) {
        by_regime[name] = {{"runs", stats.runs}, {"mean_abs_error", std::round(stats.mean_abs() * 1e4) / 1e4},
                           {"signed_mean_error", std::round(stats.mean() * 1e4) / 1e4}};
    }
    asset["regimes"] = by_regime;
    nlohmann::ordered_json by_gpu = nlohmann::ordered_json::object();
    for (const auto& [key, best] : ceilings) by_gpu[key] = {{"mfu", std::round(best.first * 1e4) / 1e4}, {"run", best.second}};
    asset["mfu_ceilings"] = by_gpu;
    return asset;
}

void write_docs() {
    std::map<std::string, Stats> families;
    Stats all;
    for (const Row& row : rows()) {
        families[row.family].add(row.error);
        all.add(row.error);
    }
    std::ostringstream out;
    out << "## The validation set\n\nWritten by `tests/test_validation_set.cpp` from `validation/runs.json` (the runs of "
           "`validation/published_runs.json` set up as scenarios by `validation/make_scenarios.py`, the 2021-2022 Megatron-LM "
           "tables, and Hugging Face models measured on one H200 with `measurements/hf_training_probe.py`). Error: the "
           "modelled step over the published one, minus 1: above 0 the model is slower than the run, below 0 faster. Each run is held, as evaluate holds "
           "any layout, to the best MFU published for its framework on its GPU, but by the other runs: its own is no check "
           "(\"held\" marks the runs the ceiling moved). The runs the model cannot represent are listed in `validation/runs.json` under `excluded`, each with its reason. "
           "Where the model still errs, and why as far as is known: Megatron-DeepSpeed's pipeline engine ran MT-NLG 530B "
           "at 113-126 TFLOP/s per GPU where Megatron-LM's reached 163 with the same model, a gap the model does not price; "
           "torchtitan's H100 runs used Meta's 500 W parts, whose lower GEMM clocks are not modelled (its long-context "
           "runs, attention-bound, come out 17-34 % fast, after PyTorch's ring attention's gathers of K and V and its fp32 "
           "merges, which the model prices from its code); float8 runs without tensor parallelism come out 14-16 % slow "
           "(torch.compile's fusion of the float8 casts into their neighbours is not modelled); DeepSpeed's 2021 ZeRO-3 "
           "engine (Narayanan et al. 2021 Table 2) is priced from its code, one synchronised all-gather per weight matrix, "
           "and reproduces the 175B runs' fall from 384 to 1,536 GPUs within 18 %, but the 530B runs at 1,120 and 2,240 GPUs "
           "come out 29-30 % fast.\n\n";
    // One table of families: its rows, then the whole set's.
    const auto family_table = [&out](const char* heading, const std::map<std::string, Stats>& by_family, const Stats& total) {
        out << "## " << heading << "\n\n| family | runs | mean abs error | signed mean | worst |\n|---|---|---|---|---|\n";
        for (const auto& [family, stats] : by_family) {
            out << "| " << family << " | " << stats.runs << " | " << percent(stats.mean_abs()).substr(1) << " | " << percent(stats.mean())
                << " | " << percent(stats.worst).substr(1) << " |\n";
        }
        out << "| **all** | " << total.runs << " | " << percent(total.mean_abs()).substr(1) << " | " << percent(total.mean()) << " | "
            << percent(total.worst).substr(1) << " |\n\n";
    };
    family_table("By framework", families, all);
    std::map<std::string, Stats> large_families;
    Stats large;
    for (const Row& row : rows()) {
        if (row.gpus < 256) continue;
        large_families[row.family].add(row.error);
        large.add(row.error);
    }
    family_table("At scale: runs of 256 GPUs or more", large_families, large);
    out << "## By run\n\n| run | family | GPU | published step | modelled step | error |\n|---|---|---|---|---|---|\n";
    for (const Row& row : rows()) {
        out << "| " << row.id << " | " << row.family << " | " << row.gpu << " | " << core::format_seconds(row.published_seconds) << " | "
            << core::format_seconds(row.modelled_seconds) << (row.held ? " (held)" : "") << " | " << percent(row.error) << " |\n";
    }
    // The peaks torch.cuda reported for the runs measured on one H200, against the modelled allocator's.
    Stats allocated, reserved;
    std::ostringstream peaks;
    for (const Row& row : rows()) {
        if (row.peak_allocated <= 0) continue;
        const double allocated_error = row.modelled_allocated / row.peak_allocated - 1.0;
        const double reserved_error = row.modelled_reserved / row.peak_reserved - 1.0;
        allocated.add(allocated_error);
        reserved.add(reserved_error);
        peaks << "| " << row.id << " | " << core::format_bytes(row.peak_allocated) << " | " << core::format_bytes(row.modelled_allocated) << " | "
              << percent(allocated_error) << " | " << core::format_bytes(row.peak_reserved) << " | " << core::format_bytes(row.modelled_reserved)
              << " | " << percent(reserved_error) << " |\n";
    }
    out << "\n## Peak memory on one H200\n\nThe " << allocated.runs << " Hugging Face runs measured on one H200: the peaks "
           "`torch.cuda.max_memory_allocated` and `max_memory_reserved` reported over the first two steps, against the memory "
           "timeline's allocated and reserved peaks (its model of PyTorch's caching allocator). Allocated: mean |error| "
        << percent(allocated.mean_abs()).substr(1) << ", signed " << percent(allocated.mean()) << ", worst " << percent(allocated.worst).substr(1)
        << "; reserved: mean |error| " << percent(reserved.mean_abs()).substr(1) << ", signed " << percent(reserved.mean()) << ", worst "
        << percent(reserved.worst).substr(1) << ".\n\n| run | allocated | modelled | error | reserved | modelled | error |\n|---|---|---|---|---|---|---|\n"
        << peaks.str();
    // Fine-tuning: the published runs the model can represent and the PEFT runs measured on one H200.
    Stats adapter_steps, adapter_peaks, full_steps;
    double gap_least = 1e9, gap_most = -1e9;  // the steps of the family whose kernels no recipe describes
    std::ostringstream tuned;
    const auto cell = [](double published, double modelled, bool bytes) {
        if (published <= 0) return std::string("| - | - | - ");
        const auto show = [&](double value) { return bytes ? core::format_bytes(value) : core::format_seconds(value); };
        return "| " + show(published) + " | " + show(modelled) + " | " + percent(modelled / published - 1.0) + " ";
    };
    for (const FinetuneRow& row : finetune_rows()) {
        if (row.published_seconds > 0 && !known_gap(row)) (row.adapters() ? adapter_steps : full_steps).add(row.step_error());
        if (row.published_seconds > 0 && known_gap(row)) {
            gap_least = std::min(gap_least, row.step_error());
            gap_most = std::max(gap_most, row.step_error());
        }
        if (row.published_peak > 0 && row.adapters()) adapter_peaks.add(row.peak_error());
        tuned << "| " << row.id << " | " << row.family << " | " << row.method << " | " << row.gpu << " " << cell(row.published_seconds, row.modelled_seconds, false)
              << cell(row.published_peak, row.modelled_allocated, true) << "| " << (row.peak_kind.empty() ? "-" : row.peak_kind) << " |\n";
    }
    out << "\n## Fine-tuning\n\nThe published fine-tuning runs of `validation/published_runs.json` that the model can represent (torchtune's "
           "README tables, NeMo's and Megatron-Bridge's full fine-tunes, NeMo AutoModel's LoRA runs), and PEFT LoRA on Hugging Face "
           "Llama models measured on one H200. The peak is set against the modelled allocated peak: torchtune's flags table "
           "prints the peak active memory, its speed table does not say which (`unknown`), the PEFT runs print "
           "`max_memory_allocated`. Steps come from tokens/s per GPU where a run states it per GPU. LoRA and QLoRA steps, "
           "but NeMo AutoModel's: mean |error| " << percent(adapter_steps.mean_abs()).substr(1) << ", signed " << percent(adapter_steps.mean())
        << ", worst " << percent(adapter_steps.worst).substr(1) << " (" << adapter_steps.runs << " runs); their peaks: mean |error| "
        << percent(adapter_peaks.mean_abs()).substr(1) << ", signed " << percent(adapter_peaks.mean()) << ", worst "
        << percent(adapter_peaks.worst).substr(1) << " (" << adapter_peaks.runs << " runs); full fine-tunes' steps: mean |error| "
        << percent(full_steps.mean_abs()).substr(1) << ", signed " << percent(full_steps.mean()) << " (" << full_steps.runs
        << " runs). NeMo AutoModel's LoRA runs, set up with its own Llama's recipe (one QKV and one gate-up projection, its "
           "Triton LoRA kernels, transformers' eager norms and RoPE), come out " << percent(gap_least) << " to " << percent(gap_most)
        << ", and their modelled peak is over the 80 GB they ran in: its table's kernel column says \"TE + triton\", kernels "
           "the recipe does not have. The runs left out are listed in `validation/runs.json` under `finetune_excluded`, each "
           "with its reason (activation offloading, the optimizer inside the backward, 8-bit paged AdamW, encoder-decoder "
           "models, LoRA on Megatron-Core's fused blocks, GPUs outside the catalog).\n\n"
           "| run | family | method | GPU | published step | modelled step | error | published peak | modelled allocated | error | peak kind |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n"
        << tuned.str();
    // docs/validation.md keeps its other sections; this one sits between its markers (after the introduction if new).
    const std::string path = std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/validation.md";
    std::string page = source_file("docs/validation.md");
    const std::string begin = "<!-- validation-set: written by tests/test_validation_set.cpp -->\n", end = "<!-- validation-set end -->\n";
    const std::string section = begin + out.str() + "\n" + end;
    const auto first = page.find(begin), last = page.find(end);
    if (first != std::string::npos && last != std::string::npos) {
        page.replace(first, last + end.size() - first, section);
    } else {
        const auto heading = page.find("\n## ");
        page.insert(heading == std::string::npos ? page.size() : heading + 1, section + "\n");
    }
    std::ofstream(path) << page;
}

}  // namespace

// The goal is 8 % mean |error|, a signed mean within 3 % and every framework within 15 %; the model is not there yet
// (docs/validation.md: 8.8 % and -5.0 % on 152 runs, optimistic). These bounds hold what it reaches so that no change
// loses ground (the signed mean's moved from 5 % to 5.5 % when autograd's gradient sums came to be counted as its engine
// makes them: a view, a same-dtype cast and a slice's part had each been counted as one more reader of their tensor, and
// those spurious sums had hidden 0.3 % of the optimism), and name the family still outside 15 %: Megatron-DeepSpeed's 2021-2022 runs (MT-NLG, BLOOM), which ran
// about 25 % below what the same model reached on Megatron-LM's own pipeline (Narayanan et al. 2021 Table 1: 163 TFLOP/s
// per GPU for 530B, MT-NLG 113-126); the model prices both engines alike and is held only by the family's published MFU.
TEST_CASE("Validation set: mean |error| of the step <= 9 %, signed mean within 5.5 %, each framework's mean within 15 % but one named gap", "[validation-set]") {
    write_docs();
    std::map<std::string, Stats> families;
    Stats all;
    for (const Row& row : rows()) {
        families[row.family].add(row.error);
        all.add(row.error);
    }
    REQUIRE(all.runs >= 150);
    REQUIRE(families.size() >= 9);
    INFO("mean |error| " << all.mean_abs() << ", signed " << all.mean());
    CHECK(all.mean_abs() <= 0.09);
    CHECK(std::fabs(all.mean()) <= 0.055);
    // DeepSpeed's 2021 ZeRO-3 (Narayanan et al. 2021 Table 2): its per-parameter synchronised gathers reproduce the fall
    // from 384 to 1,536 GPUs, but at 1,120 and 2,240 GPUs the 530B runs still come out 29-30 % fast.
    const std::map<std::string, double> known_gaps = {{"megatron-deepspeed", 0.21}, {"deepspeed zero-3 (2021)", 0.16}};
    for (const auto& [family, stats] : families) {
        INFO(family << ": mean |error| " << stats.mean_abs() << " over " << stats.runs << " runs");
        const auto gap = known_gaps.find(family);
        CHECK(stats.mean_abs() <= (gap == known_gaps.end() ? 0.15 : gap->second));
    }
}

// Runs of 256 GPUs or more: where the network, sharding and stragglers set the step. Held where the model stands (the goal
// is a mean within 8 % and a signed mean within 3 %), so that it cannot drift further towards optimism: 10.8 % and -5.6 %
// over the same 41 published runs before the fabric, the straggler wait and DeepSpeed's 2021 engine; 9.1 % and -6.1 % over
// 47 once torchtitan's pipelined runs kept FSDP's weights gathered as torchtitan does (their per-micro-batch gathers, which
// it never ran, had hidden the model's speed at 405B).
TEST_CASE("Validation set at scale: runs of 256 GPUs or more within 9.5 % on average, signed mean within 6.5 %", "[validation-set][scale]") {
    Stats large;
    for (const Row& row : rows()) {
        if (row.gpus >= 256) large.add(row.error);
    }
    REQUIRE(large.runs >= 45);
    INFO("mean |error| " << large.mean_abs() << ", signed " << large.mean() << " over " << large.runs << " runs");
    CHECK(large.mean_abs() <= 0.095);
    CHECK(std::fabs(large.mean()) <= 0.065);
}

// Every published sweep of assets/published_sweeps.json, run by run as the validation set holds it: the shape (each point's
// throughput per GPU over the sweep's first point's) within 15 % of the published one.
TEST_CASE("Published scaling sweeps: the shape of each within 15 % at every point", "[validation-set][scale]") {
    const nlohmann::json runs = nlohmann::json::parse(source_file("validation/runs.json"));
    // Table 2's 175B ZeRO-3 sweep: its 384-GPU point is held by the family's published ceiling and its 768-GPU point
    // comes out 18 % fast, so the modelled fall from 384 to 768 GPUs is 17 % short of the published one.
    const std::map<std::string, double> known_gaps = {{"narayanan-2021-t2-zero3-175b", 0.20}};
    int sweeps = 0;
    for (const core::PublishedSweep& sweep : core::published_sweeps()) {
        std::map<int, double> modelled;  // GPUs -> tokens/s per GPU
        for (const nlohmann::json& run : runs["runs"]) {
            const core::Scenario scenario = core::parse_scenario(run["scenario"].dump());
            if (core::matching_sweep(scenario, sweep.mode) != &sweep) continue;
            const Row* row = nullptr;
            for (const Row& candidate : rows()) if (candidate.id == run["id"]) row = &candidate;
            REQUIRE(row);
            modelled[scenario.cluster.gpus] = scenario.train.global_batch * scenario.train.seq_len / row->modelled_seconds / scenario.cluster.gpus;
        }
        REQUIRE(modelled.size() == sweep.points.size());
        const core::PublishedSweepPoint& first = sweep.points.front();
        for (const core::PublishedSweepPoint& point : sweep.points) {
            const double published_ratio = point.tokens_per_s_per_gpu / first.tokens_per_s_per_gpu;
            const double modelled_ratio = modelled.at(point.gpus) / modelled.at(first.gpus);
            INFO(sweep.name << " at " << point.gpus << " GPUs: published " << published_ratio << " of the first point, modelled " << modelled_ratio);
            const auto gap = known_gaps.find(sweep.id);
            CHECK(std::fabs(modelled_ratio / published_ratio - 1.0) <= (gap == known_gaps.end() ? 0.15 : gap->second));
        }
        ++sweeps;
    }
    CHECK(sweeps >= 3);
}

// Each within 15 % is the goal; three small-model runs are not there yet (GPT-2 124M at one short sequence, where the
// host's launch rate sets the step, is modelled 30 % slow; two others 17-20 % fast). The family's mean stays within 8 %.
TEST_CASE("Validation set: Hugging Face models trained on one H200 (measured): mean within 8 %, each within 30 % of the step", "[validation-set]") {
    int checked = 0;
    Stats family;
    for (const Row& row : rows()) {
        if (row.family.rfind("hf-transformers", 0) != 0) continue;
        INFO(row.id << ": measured " << row.published_seconds << " s, modelled " << row.modelled_seconds << " s");
        CHECK(std::fabs(row.error) <= 0.30);
        family.add(row.error);
        ++checked;
    }
    REQUIRE(checked >= 15);
    CHECK(family.mean_abs() <= 0.08);
}

TEST_CASE("Validation set: evaluate reports no run's MFU above the best published for its program (framework, GPU, fp8, "
          "compile) on its GPU", "[validation-set]") {
    const nlohmann::ordered_json asset = expected_error_asset();
    for (const Row& row : rows()) {
        const std::string key = row.ceiling_key();
        INFO(row.id << ": evaluated MFU " << row.evaluated_mfu << " against " << key);
        REQUIRE(asset["mfu_ceilings"].contains(key));
        CHECK(row.evaluated_mfu <= asset["mfu_ceilings"][key]["mfu"].get<double>() + 1e-3);
    }
}

TEST_CASE("Validation set: assets/expected_error.json holds the regimes' errors and MFU ceilings of this model", "[validation-set]") {
    const std::string expected = expected_error_asset().dump(1) + "\n";
    if (std::getenv("SHARDSCOPE_UPDATE_VALIDATION")) {
        std::ofstream(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/expected_error.json") << expected;
    }
    INFO("run SHARDSCOPE_UPDATE_VALIDATION=1 build/shardscope_tests \"[validation-set]\" and rebuild when the model moved");
    CHECK(source_file("assets/expected_error.json") == expected);
}

// The fine-tuning bounds over every LoRA and QLoRA run the model represents (torchtune's README, PEFT measured on an H200), but
// NeMo AutoModel's (known_gap): held to its known direction and size instead, pessimistic by at most 30 %, so that the
// gap cannot turn or grow silently.
TEST_CASE("Validation set, fine-tuning: LoRA and QLoRA peaks within 10 % and steps within 20 % of the published and measured runs", "[validation-set][finetune]") {
    int steps = 0, peaks = 0, gaps = 0, qlora = 0;
    for (const FinetuneRow& row : finetune_rows()) {
        if (!row.adapters()) continue;
        INFO(row.id << ": step " << row.modelled_seconds << " s against " << row.published_seconds << " s; allocated " << row.modelled_allocated
                    << " against " << row.published_peak << " (" << row.peak_kind << "); reserved " << row.modelled_reserved << " against " << row.published_reserved);
        qlora += row.method == "qlora";
        if (known_gap(row)) {
            CHECK(row.step_error() > 0.0);
            CHECK(row.step_error() <= 0.30);
            ++gaps;
            continue;
        }
        if (row.published_seconds > 0) {
            CHECK(std::fabs(row.step_error()) <= 0.20);
            ++steps;
        }
        if (row.published_peak > 0) {
            CHECK(std::fabs(row.peak_error()) <= 0.10);
            ++peaks;
        }
        if (row.published_reserved > 0) CHECK(std::fabs(row.reserved_error()) <= 0.10);
    }
    CHECK(steps >= 7);
    CHECK(peaks >= 8);
    CHECK(qlora >= 1);
    CHECK(gaps == 3);
}

// Full fine-tunes are training runs: the training set's bound on each family's mean holds for them too.
TEST_CASE("Validation set, fine-tuning: full fine-tunes' steps within 15 % on average", "[validation-set][finetune]") {
    Stats full;
    for (const FinetuneRow& row : finetune_rows()) {
        if (row.adapters() || row.published_seconds <= 0) continue;
        INFO(row.id << ": step " << row.modelled_seconds << " s against " << row.published_seconds << " s");
        CHECK(std::fabs(row.step_error()) <= 0.25);
        full.add(row.step_error());
        if (row.published_peak > 0) CHECK(std::fabs(row.peak_error()) <= 0.10);
    }
    CHECK(full.runs >= 5);
    CHECK(full.mean_abs() <= 0.15);
}

// Both peaks within 10 % of what torch.cuda reported on every run. The reserved peak follows the modelled caching
// allocator; it came within 10 % on Qwen2.5 0.5B at 4 x 4,096 checkpointed (24 % over before) once an autocast weight's
// bf16 dW was cast to its fp32 .grad after the GEMM's node released the incoming gradient, as autograd's engine orders it.
TEST_CASE("Validation set: Hugging Face on one H200: the allocated and the reserved peak within 10 % (measured)", "[validation-set][memory]") {
    int checked = 0;
    for (const Row& row : rows()) {
        if (row.peak_allocated <= 0) continue;
        INFO(row.id << ": allocated " << row.peak_allocated << " modelled " << row.modelled_allocated << "; reserved " << row.peak_reserved
                    << " modelled " << row.modelled_reserved);
        CHECK(std::fabs(row.modelled_allocated / row.peak_allocated - 1.0) <= 0.10);
        CHECK(std::fabs(row.modelled_reserved / row.peak_reserved - 1.0) <= 0.10);
        ++checked;
    }
    REQUIRE(checked >= 15);
}

// torchtitan's 405B benchmarks (benchmarks/llama3_h100_202412_torchtitan.md Tables 5 and 6, 512 H100s, TP 8, PP 8):
// their published max_reserved against the modelled peak reserved. Under PP torchtitan keeps every layer of a stage
// gathered with its gradients whole through the step; before the model did, it put these peaks at 41-49 GB of 78-91.
TEST_CASE("torchtitan Tables 5 and 6: Llama 3.1 405B's peak reserved on 512 H100s within 15 %", "[validation-set][memory]") {
    const nlohmann::json runs = nlohmann::json::parse(source_file("validation/runs.json"));
    const nlohmann::json published = nlohmann::json::parse(source_file("validation/published_runs.json"));
    std::map<std::string, double> published_gb;
    for (const nlohmann::json& run : published["training"]) {
        if (run["measured"]["peak_memory_gb"].is_number()) published_gb[run["id"]] = run["measured"]["peak_memory_gb"];
    }
    int checked = 0;
    for (const nlohmann::json& run : runs["runs"]) {
        const std::string id = run["id"];
        if (id.rfind("tt-h100-405b-512gpu", 0) != 0 || !published_gb.count(id)) continue;
        const core::Report report = core::evaluate(core::parse_scenario(run["scenario"].dump()));
        const double error = report.memory.peak_reserved_bytes / (published_gb[id] * 1e9) - 1.0;
        INFO(id << ": modelled " << report.memory.peak_reserved_bytes / 1e9 << " GB, published " << published_gb[id] << " GB");
        CHECK(std::fabs(error) <= 0.15);
        ++checked;
    }
    CHECK(checked == 6);
}
