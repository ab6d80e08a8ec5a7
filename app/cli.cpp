#include "app/cli.h"

#include "app/cli_docs.h"
#include "app/diff_command.h"
#include "app/eval_command.h"
#include "app/cost_command.h"
#include "app/export.h"
#include "app/files.h"
#include "app/lesson.h"
#include "app/plan_command.h"
#include "app/scenario_file.h"
#include "app/memory_command.h"
#include "app/serve_command.h"
#include "app/trace_command.h"
#include "app/size_command.h"
#include "app/window.h"
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "widgets/panel.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

namespace app {
namespace {

constexpr int kUsageError = 2;

int fail(const std::string& message) {
    std::fprintf(stderr, "shardscope: %s\n", message.c_str());
    return kUsageError;
}

bool parse_size(const std::string& text, int& width, int& height) {
    static const std::regex pattern("^([0-9]{1,5})x([0-9]{1,5})$");
    std::smatch match;
    if (!std::regex_match(text, match, pattern)) return false;
    width = std::stoi(match[1]);
    height = std::stoi(match[2]);
    return width >= 64 && height >= 64 && width <= 16384 && height <= 16384;
}

// The first line of CLI11's message, so every usage error stays one line.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

constexpr const char* kSummary = "the cost of distributed LLM training, made visible";

// Every value --panel takes, as the export accepts them.
std::vector<CliVocabulary::Panel> panel_choices() {
    std::vector<CliVocabulary::Panel> choices;
    for (const widgets::PanelDef& panel : widgets::make_all_panels()) choices.push_back({panel.name, panel.title});
    choices.push_back({"window", "The whole window: sidebar and every visible panel"});
    choices.push_back({"all", "Every panel, then the window, one PNG each"});
    return choices;
}

std::string panel_choice_list() {
    std::string names;
    for (const CliVocabulary::Panel& panel : panel_choices()) names += (names.empty() ? "" : ", ") + panel.name;
    return names;
}

// --json, --table and (plan) --csv: one at most; without one, the table on a terminal and JSON otherwise (app/table.h).
void add_format_flags(CLI::App* command, bool& json, bool* csv, bool& table,
                      const char* csv_help = "Print CSV: a header, then one row per layout with the JSON ranking's columns") {
    CLI::Option* json_flag = command->add_flag("--json", json, "Print JSON (the default when standard output is not a terminal)");
    CLI::Option* table_flag = command->add_flag("--table", table, "Print an aligned table (the default on a terminal)");
    json_flag->excludes(table_flag);
    if (csv) {
        CLI::Option* csv_flag = command->add_flag("--csv", *csv, csv_help);
        csv_flag->excludes(json_flag)->excludes(table_flag);
    }
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App cli(std::string("ShardScope: ") + kSummary + ".", "shardscope");
    // The second line says where lessons and example scenarios are read from: installed, moved, or the source tree.
    cli.set_version_flag("--version", [] { return std::string("shardscope ") + SHARDSCOPE_VERSION + "\nassets: " + asset_directory(); });
    cli.require_subcommand(0, 1);
    std::string window_scenario;
    std::string theme = "dark";
    cli.add_option("scenario", window_scenario, "Scenario JSON (or a Hugging Face config.json) to open in the window")->type_name("FILE");
    cli.add_option("--theme", theme, "dark (screen) or light (print)")->check(CLI::IsMember({"dark", "light"}));

    CLI::App* eval = cli.add_subcommand("eval", "Print every figure of a scenario: a table on a terminal, JSON otherwise");
    std::string eval_scenario;
    bool eval_json = false, eval_table = false;
    eval->add_option("scenario", eval_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    add_format_flags(eval, eval_json, nullptr, eval_table);

    CLI::App* diff = cli.add_subcommand("diff", "Compare two scenarios: the inputs that differ, then every figure that changed, "
                                                "largest relative change first (a table on a terminal, JSON otherwise)");
    std::string diff_baseline, diff_scenario;
    bool diff_json = false, diff_csv = false, diff_table = false;
    diff->add_option("baseline", diff_baseline, "The baseline: scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    diff->add_option("scenario", diff_scenario, "The scenario compared with it")->required()->type_name("FILE");
    add_format_flags(diff, diff_json, &diff_csv, diff_table,
                     "Print CSV: a header, then one row per input, figure, verdict and figure on one side only");

    CLI::App* serve = cli.add_subcommand("serve", "Print the fewest GPUs that serve the scenario's target rate within its TTFT and TPOT "
                                                  "(replicas x TP, batch, latency, cost per million tokens); exit status 3 when none does");
    std::string serve_scenario;
    bool serve_json = false, serve_table = false;
    serve->add_option("scenario", serve_scenario, "Scenario JSON")->required()->type_name("FILE");
    add_format_flags(serve, serve_json, nullptr, serve_table);

    CLI::App* memory = cli.add_subcommand("memory", "Print memory over one training step, point by point (each layer's forward and "
                                                    "backward, the loss, the optimizer, zero_grad): allocated and reserved");
    std::string memory_scenario;
    bool memory_csv = false, memory_json = false, memory_table = false;
    int memory_stage = -1;
    memory->add_option("scenario", memory_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    memory->add_flag("--csv", memory_csv, "Print CSV (the default when standard output is not a terminal)");
    memory->add_flag("--json", memory_json, "Print JSON");
    memory->add_flag("--table", memory_table, "Print an aligned table (the default on a terminal)");
    memory->add_option("--stage", memory_stage, "Pipeline stage, 0 first (default: the heaviest)")->type_name("N");

    CLI::App* exporter = cli.add_subcommand("export", "Render panels headless to PNG files");
    std::string export_scenario, export_panel = "all", out_dir = ".", size = "1600x900";
    float scale = 1.0f;
    double t_seconds = 0;
    exporter->add_option("--scenario", export_scenario, "Scenario JSON or a Hugging Face config.json (default: the built-in scenario)")->type_name("FILE");
    exporter->add_option("--panel", export_panel, "Panel to render: " + panel_choice_list())->type_name("PANEL");
    exporter->add_option("--out", out_dir, "Output directory")->type_name("DIR");
    exporter->add_option("--size", size, "Logical size WxH")->type_name("WxH");
    exporter->add_option("--scale", scale, "UI and pixel scale (2 doubles the size)");
    exporter->add_option("--t", t_seconds, "Animation time in seconds (default: each panel at the end of its animation)");
    bool keep_controls = false;
    exporter->add_flag("--controls", keep_controls, "Keep the live controls and key hints (default: a clean figure)");
    exporter->add_option("--theme", theme, "dark or light")->check(CLI::IsMember({"dark", "light"}));
    std::string export_baseline;
    exporter->add_option("--baseline", export_baseline, "Scenario JSON (or a Hugging Face config.json) every panel is drawn against, "
                                                        "as a pinned baseline")->type_name("FILE");
    std::string lesson_path;
    exporter->add_option("--lesson", lesson_path, "Lesson JSON: one PNG per scene, with its caption")->type_name("FILE");

    CLI::App* plan = cli.add_subcommand("plan", "Rank feasible parallel layouts");
    std::string plan_scenario;
    int top = 10;
    plan->add_option("scenario", plan_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    plan->add_option("--top", top, "How many layouts to print");
    bool plan_json = false, plan_csv = false, plan_table = false;
    add_format_flags(plan, plan_json, &plan_csv, plan_table);

    CLI::App* trace = cli.add_subcommand("trace", "Write the modelled step as a Chrome trace (Perfetto, chrome://tracing)");
    std::string trace_scenario, trace_out;
    trace->add_option("scenario", trace_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    trace->add_option("--out", trace_out, "Trace file to write (default: standard output)")->type_name("FILE");

    // plan --size: GPU type x GPU count x layout, ranked by cost to train (app/size_command.h).
    SizeCommandOptions size_options;
    double size_deadline_days = 0, size_budget = 0;
    bool size_requested = false;
    CLI::Option* size_flag = plan->add_flag("--size", size_requested, "Size the cluster: every catalog GPU at 1, 2, 3, 4, 6, 8, ... GPUs with its fastest layout, "
                                                      "ranked by cost to train (GPUs x price x (time to train + setup))");
    CLI::Option* size_deadline = plan->add_option("--deadline-days", size_deadline_days, "With --size: the deadline (default: the scenario's train.deadline_days)")
                                     ->type_name("DAYS")->needs(size_flag);
    CLI::Option* size_budget_option = plan->add_option("--budget", size_budget, "With --size: the most a cluster may cost (default: the scenario's budget.dollars)")
                                          ->type_name("DOLLARS")->needs(size_flag);
    plan->add_option("--max-gpus", size_options.max_gpus, "With --size: the largest GPU count tried (default 4096)")->type_name("N")->needs(size_flag);
    plan->add_option("--gpu-types", size_options.gpu_types, "With --size: the catalog GPUs to try, comma-separated (default: every one with a price)")
        ->type_name("ID,...")->delimiter(',')->needs(size_flag);

    CLI::App* cost = cli.add_subcommand("cost", "Print what a scenario's run costs as one sentence: GPUs x price x (run + setup) hours, against a budget");
    std::string cost_scenario;
    bool cost_json = false;
    double cost_budget = 0;
    cost->add_option("scenario", cost_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    cost->add_flag("--json", cost_json, "Print JSON for scripts");
    CLI::Option* cost_budget_option =
        cost->add_option("--budget", cost_budget, "Exit with status 3, naming the overrun, when the estimate exceeds DOLLARS (replaces the scenario's budget.dollars)")
            ->type_name("DOLLARS");

    // The build's hook, hidden from --help: the man page and completions are generated from the definitions above.
    CLI::App* generate = cli.add_subcommand("__generate", "Print the man page or a shell's completion script")->group("");
    std::string generated = "man";
    generate->add_option("what", generated, "man, bash or zsh")->required()->check(CLI::IsMember({"man", "bash", "zsh"}));

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return cli.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return cli.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return cli.exit(version);
    } catch (const CLI::ParseError& error) {
        return fail(first_line(error.what()));
    }

    if (*generate) {
        const CliVocabulary vocabulary{kSummary, SHARDSCOPE_VERSION, panel_choices()};
        const std::string text = generated == "man"    ? man_page(cli, vocabulary)
                               : generated == "bash" ? bash_completion(cli, vocabulary)
                                                     : zsh_completion(cli, vocabulary);
        std::fputs(text.c_str(), stdout);
        return 0;
    }

    try {
        if (*eval) {
            return run_eval(load_scenario_file(eval_scenario), output_format(eval_json, false, eval_table));
        }
        if (*diff) return run_diff(diff_baseline, diff_scenario, output_format(diff_json, diff_csv, diff_table));
        if (*trace) return run_trace(load_scenario_file(trace_scenario), trace_out);
        if (*memory) {
            const MemoryFormat format = memory_json ? MemoryFormat::json : memory_table ? MemoryFormat::table
                                        : memory_csv || !isatty(fileno(stdout)) ? MemoryFormat::csv : MemoryFormat::table;
            return run_memory(load_scenario_file(memory_scenario), format, memory_stage);
        }
        if (*serve) return run_serve(load_scenario_file(serve_scenario), output_format(serve_json, false, serve_table));
        if (*plan) {
            if (top < 1 || top > 100000) return fail("--top: must be between 1 and 100000");
            if (size_requested) {
                if (*size_deadline && !(size_deadline_days > 0 && size_deadline_days <= 1e6)) return fail("--deadline-days: must be between 0 and 1e6");
                if (*size_budget_option && !(size_budget >= 0 && size_budget <= 1e12)) return fail("--budget: must be between 0 and 1e12 dollars");
                if (size_options.max_gpus < 1 || size_options.max_gpus > 1000000) return fail("--max-gpus: must be between 1 and 1000000");
                size_options.top = top;
                if (*size_deadline) size_options.deadline_days = size_deadline_days;
                if (*size_budget_option) size_options.budget_dollars = size_budget;
                if (plan_csv) return fail("--size: prints its ranking as a table or as JSON, not CSV");
                // As plan itself: a table on a terminal, JSON down a pipe; --json and --table choose.
                size_options.json = output_format(plan_json, false, plan_table) == OutputFormat::json;
                return run_size(load_scenario_file(plan_scenario, core::ScenarioUse::plan), size_options);  // sizing ignores the file's layout
            }
            // plan ignores the file's own layout
            return run_plan(load_scenario_file(plan_scenario, core::ScenarioUse::plan), {top, output_format(plan_json, plan_csv, plan_table)});
        }
        if (*cost) {
            if (*cost_budget_option && !(cost_budget >= 0 && cost_budget <= 1e12)) return fail("--budget: must be between 0 and 1e12 dollars");
            return run_cost(load_scenario_file(cost_scenario), cost_json,
                            *cost_budget_option ? std::optional<double>(cost_budget) : std::nullopt);
        }
        if (*exporter) {
            ExportOptions options;
            if (!parse_size(size, options.width, options.height)) return fail("--size: expected WxH between 64x64 and 16384x16384, got \"" + size + "\"");
            if (!(scale >= 0.25f && scale <= 8.0f)) return fail("--scale: must be between 0.25 and 8");
            if (!(t_seconds >= 0 && t_seconds <= 1e6)) return fail("--t: must be between 0 and 1e6 seconds");
            std::string error;
            const bool lesson_only = !lesson_path.empty() && exporter->count("--panel") == 0;
            if (!lesson_only) options.panels = export_targets(export_panel, &error);
            if (!error.empty()) return fail(error);
            if (!lesson_path.empty()) {
                std::vector<std::string> names;
                for (const widgets::PanelDef& panel : widgets::make_all_panels()) names.push_back(panel.name);
                options.lesson = load_lesson_file(lesson_path, names);
            }
            options.scenario = export_scenario.empty() ? core::default_scenario() : load_scenario_file(export_scenario);
            core::evaluate(options.scenario);  // refuse an invalid scenario before opening a context
            if (!export_baseline.empty()) {
                options.baseline = load_named_scenario_file(export_baseline);
                options.baseline_name = std::filesystem::path(export_baseline).filename().string();
            }
            options.out_dir = out_dir;
            options.scale = scale;
            if (exporter->count("--t")) options.t_seconds = t_seconds;
            options.controls = keep_controls;
            options.light_theme = theme == "light";
            std::vector<std::string> written;
            error = run_export(options, &written);
            for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
            if (!error.empty()) {
                std::fprintf(stderr, "shardscope: %s\n", error.c_str());
                return 1;
            }
            return 0;
        }
        WindowOptions options;
        options.scenario = window_scenario.empty() ? core::default_scenario() : load_scenario_file(window_scenario);
        core::evaluate(options.scenario);
        options.scenario_path = window_scenario;
        options.light_theme = theme == "light";
        return run_window(options);
    } catch (const core::InputError& error) {
        return fail(error.what());
    }
}

}  // namespace app
