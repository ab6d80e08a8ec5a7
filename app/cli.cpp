#include "app/cli.h"

#include "app/cli_docs.h"
#include "app/diff_command.h"
#include "app/eval_command.h"
#include "app/cost_command.h"
#include "app/run_command.h"
#include "app/scaling_command.h"
#include "app/export.h"
#include "app/files.h"
#include "app/lesson.h"
#include "app/plan_command.h"
#include "app/scenario_file.h"
#include "app/memory_command.h"
#include "app/recipe_command.h"
#include "app/serve_command.h"
#include "app/trace_command.h"
#include "app/size_command.h"
#include "app/window.h"
#include "core/model/errors.h"
#include "core/model/scenario_edits.h"
#include "core/cost/report/evaluate.h"
#include "widgets/panel.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>
#include <vector>

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

// What the command line sets: each command's flags, and the commands themselves (set when given).
struct CliInputs {
    std::string window_scenario;
    std::string theme = "dark";
    CLI::App* eval = nullptr;
    std::string eval_scenario;
    bool eval_json = false, eval_table = false;
    CLI::App* diff = nullptr;
    std::string diff_baseline, diff_scenario;
    bool diff_json = false, diff_csv = false, diff_table = false;
    CLI::App* serve = nullptr;
    std::string serve_scenario;
    bool serve_json = false, serve_table = false;
    CLI::App* memory = nullptr;
    std::string memory_scenario;
    bool memory_csv = false, memory_json = false, memory_table = false;
    int memory_stage = -1;
    CLI::App* recipe = nullptr;
    std::string recipe_file;
    bool recipe_json = false, recipe_table = false;
    CLI::App* exporter = nullptr;
    std::string export_scenario, export_panel = "all", out_dir = ".", size = "1600x900";
    float scale = 1.0f;
    double t_seconds = 0;
    bool keep_controls = false;
    std::string export_sidebar;  // "open", "folded", or empty: a panel alone, as a figure
    std::string export_baseline;  // a scenario every panel is drawn against, as a pinned baseline
    std::string lesson_path;
    CLI::App* plan = nullptr;
    std::string plan_scenario;
    std::string plan_method;  // --method: full, lora or qlora in place of the file's finetune.method
    int top = 10;
    bool plan_json = false, plan_csv = false, plan_table = false;
    CLI::App* trace = nullptr;
    std::string trace_scenario, trace_out;
    SizeCommandOptions size_options;
    double size_deadline_days = 0, size_budget = 0;
    bool size_requested = false;
    CLI::Option* size_deadline = nullptr;
    CLI::Option* size_budget_option = nullptr;
    CLI::App* scaling = nullptr;
    std::string scaling_scenario;
    bool scaling_weak = false, scaling_json = false, scaling_csv = false, scaling_table = false;
    int scaling_max_gpus = 16384;
    CLI::App* run = nullptr;
    std::string run_scenario, run_failures;
    RunCommandOptions run_options;
    bool run_json = false, run_csv = false, run_table = false;
    CLI::App* cost = nullptr;
    std::string cost_scenario;
    bool cost_json = false;
    double cost_budget = 0;
    CLI::Option* cost_budget_option = nullptr;
    CLI::App* generate = nullptr;
    std::string generated = "man";
};

void add_window_options(CLI::App& cli, CliInputs& in) {
    // The second line says where lessons and example scenarios are read from: installed, moved, or the source tree.
    cli.set_version_flag("--version", [] { return std::string("shardscope ") + SHARDSCOPE_VERSION + "\nassets: " + asset_directory(); });
    cli.require_subcommand(0, 1);
    cli.add_option("scenario", in.window_scenario, "Scenario JSON (or a Hugging Face config.json) to open in the window")->type_name("FILE");
    cli.add_option("--theme", in.theme, "dark (screen) or light (print)")->check(CLI::IsMember({"dark", "light"}));
}

void add_eval_command(CLI::App& cli, CliInputs& in) {
    in.eval = cli.add_subcommand("eval", "Print every figure of a scenario: a table on a terminal, JSON otherwise");
    in.eval->add_option("scenario", in.eval_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    add_format_flags(in.eval, in.eval_json, nullptr, in.eval_table);
}

void add_diff_command(CLI::App& cli, CliInputs& in) {
    in.diff = cli.add_subcommand("diff", "Compare two scenarios: the inputs that differ, then every figure that changed, "
                                         "largest relative change first (a table on a terminal, JSON otherwise)");
    in.diff->add_option("baseline", in.diff_baseline, "The baseline: scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    in.diff->add_option("scenario", in.diff_scenario, "The scenario compared with it")->required()->type_name("FILE");
    add_format_flags(in.diff, in.diff_json, &in.diff_csv, in.diff_table,
                     "Print CSV: a header, then one row per input, figure, verdict and figure on one side only");
}

void add_serve_command(CLI::App& cli, CliInputs& in) {
    in.serve = cli.add_subcommand("serve", "Print the fewest GPUs that serve the scenario's target rate within its TTFT and TPOT "
                                           "(replicas x TP, batch, latency, cost per million tokens); exit status 3 when none does or they exceed the "
                                           "serving budget");
    in.serve->add_option("scenario", in.serve_scenario, "Scenario JSON")->required()->type_name("FILE");
    add_format_flags(in.serve, in.serve_json, nullptr, in.serve_table);
}

void add_memory_command(CLI::App& cli, CliInputs& in) {
    CLI::App* memory = in.memory = cli.add_subcommand("memory", "Print memory over one training step, point by point (each layer's forward and "
                                                                "backward, the loss, the optimizer, zero_grad): allocated and reserved");
    memory->add_option("scenario", in.memory_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    memory->add_flag("--csv", in.memory_csv, "Print CSV (the default when standard output is not a terminal)");
    memory->add_flag("--json", in.memory_json, "Print JSON");
    memory->add_flag("--table", in.memory_table, "Print an aligned table (the default on a terminal)");
    memory->add_option("--stage", in.memory_stage, "Pipeline stage, 0 first (default: the heaviest)")->type_name("N");
}

void add_recipe_command(CLI::App& cli, CliInputs& in) {
    in.recipe = cli.add_subcommand("recipe", "Check a framework recipe file (the ops one transformer layer launches, each with its source) "
                                             "and print its ops; exit status 2 naming the file, the op and the field when it is refused");
    in.recipe->add_option("file", in.recipe_file, "Recipe JSON, in the format of the shipped recipes (frameworks/*.json)")->required()->type_name("FILE");
    add_format_flags(in.recipe, in.recipe_json, nullptr, in.recipe_table);
}

void add_export_command(CLI::App& cli, CliInputs& in) {
    CLI::App* exporter = in.exporter = cli.add_subcommand("export", "Render panels headless to PNG files");
    exporter->add_option("--scenario", in.export_scenario, "Scenario JSON or a Hugging Face config.json (default: the built-in scenario)")->type_name("FILE");
    exporter->add_option("--panel", in.export_panel, "Panel to render: " + panel_choice_list())->type_name("PANEL");
    exporter->add_option("--out", in.out_dir, "Output directory")->type_name("DIR");
    exporter->add_option("--size", in.size, "Logical size WxH")->type_name("WxH");
    exporter->add_option("--scale", in.scale, "UI and pixel scale (2 doubles the size)");
    exporter->add_option("--t", in.t_seconds, "Animation time in seconds (default: each panel at the end of its animation)");
    exporter->add_flag("--controls", in.keep_controls, "Keep the live controls and key hints (default: a clean figure)");
    exporter->add_option("--theme", in.theme, "dark or light")->check(CLI::IsMember({"dark", "light"}));
    exporter->add_option("--sidebar", in.export_sidebar,
                         "open or folded: each panel as the window shows it, its tab beside the scenario sidebar open or folded, "
                         "with its controls (default: a panel alone, as a figure)")
        ->check(CLI::IsMember({"open", "folded"}))->type_name("open|folded");
    exporter->add_option("--baseline", in.export_baseline, "Scenario JSON (or a Hugging Face config.json) every panel is drawn against, "
                                                           "as a pinned baseline")->type_name("FILE");
    exporter->add_option("--lesson", in.lesson_path, "Lesson JSON: one PNG per scene, with its caption")->type_name("FILE");
}

// plan, and plan --size: GPU type x GPU count x layout, ranked by cost to train (app/size_command.h).
void add_plan_command(CLI::App& cli, CliInputs& in) {
    CLI::App* plan = in.plan = cli.add_subcommand("plan", "Rank feasible parallel layouts");
    plan->add_option("scenario", in.plan_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    plan->add_option("--top", in.top, "How many layouts to print");
    add_format_flags(plan, in.plan_json, &in.plan_csv, in.plan_table);
    CLI::Option* size_flag = plan->add_flag("--size", in.size_requested, "Size the cluster: every catalog GPU at 1, 2, 3, 4, 6, 8, ... GPUs with its fastest layout, "
                                                                         "ranked by cost to train (GPUs x price x (time to train + setup))");
    in.size_deadline = plan->add_option("--deadline-days", in.size_deadline_days, "With --size: the deadline (default: the scenario's train.deadline_days)")
                           ->type_name("DAYS")->needs(size_flag);
    in.size_budget_option = plan->add_option("--budget", in.size_budget, "With --size: the most a cluster may cost (default: the scenario's budget.dollars)")
                                ->type_name("DOLLARS")->needs(size_flag);
    plan->add_option("--method", in.plan_method, "Fine-tune method in place of the file's: full, lora (bf16 base) or qlora (NF4 base), "
                                                 "with the file's rank and targets; Megatron's fused layers become hf-transformers")
        ->type_name("METHOD")->check(CLI::IsMember({"full", "lora", "qlora"}));
    plan->add_option("--max-gpus", in.size_options.max_gpus, "With --size: the largest GPU count tried (default 4096)")->type_name("N")->needs(size_flag);
    plan->add_option("--gpu-types", in.size_options.gpu_types, "With --size: the catalog GPUs to try, comma-separated (default: every one with a price)")
        ->type_name("ID,...")->delimiter(',')->needs(size_flag);
}

void add_trace_command(CLI::App& cli, CliInputs& in) {
    in.trace = cli.add_subcommand("trace", "Write the modelled step as a Chrome trace (Perfetto, chrome://tracing)");
    in.trace->add_option("scenario", in.trace_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    in.trace->add_option("--out", in.trace_out, "Trace file to write (default: standard output)")->type_name("FILE");
}

void add_run_command(CLI::App& cli, CliInputs& in) {
    CLI::App* run = in.run = cli.add_subcommand("run", "Simulate the whole training run with its failures, checkpoints and restarts: "
                                                      "one seeded run, the spread over many, and the closed form beside them");
    run->add_option("scenario", in.run_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    run->add_option("--seed", in.run_options.seed, "The first run's seed (default: the scenario's operations.run_seed, 1); the same seed gives the same run")
        ->check(CLI::Range(1, 1000000000))
        ->type_name("N");
    run->add_option("--runs", in.run_options.runs, "Seeded runs in the distribution (default 100)")
        ->check(CLI::Range(1, 100000))
        ->type_name("K");
    run->add_option("--days", in.run_options.days, "Simulate the first D wall-clock days (default: the scenario's operations.window_days; 0: the whole run)")
        ->check(CLI::Range(0.0, 100000.0))
        ->type_name("D");
    run->add_option("--failures", in.run_failures, "A failure table file in place of the scenario's operations.failures")->type_name("FILE");
    run->add_flag("--json", in.run_json, "Print JSON for scripts");
    run->add_flag("--csv", in.run_csv, "Print the seed's run as CSV, one row per stretch of wall time");
    run->add_flag("--table", in.run_table, "Print the aligned table even when the output is not a terminal");
}

void add_scaling_command(CLI::App& cli, CliInputs& in) {
    CLI::App* scaling = in.scaling = cli.add_subcommand("scaling", "Print the step, MFU and each overhead as data parallelism doubles: "
                                                                  "strong scaling at the scenario's global batch, or weak scaling per replica");
    scaling->add_option("scenario", in.scaling_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    scaling->add_flag("--weak", in.scaling_weak, "Hold each replica's batch instead of the global batch");
    scaling->add_option("--max-gpus", in.scaling_max_gpus, "The largest GPU count of the sweep (default 16384)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    scaling->add_flag("--json", in.scaling_json, "Print JSON for scripts (every point)");
    scaling->add_flag("--csv", in.scaling_csv, "Print CSV, one row per GPU count");
    scaling->add_flag("--table", in.scaling_table, "Print the aligned table even when the output is not a terminal");
}

void add_cost_command(CLI::App& cli, CliInputs& in) {
    CLI::App* cost = in.cost = cli.add_subcommand("cost", "Print what a scenario's run costs as one sentence: GPUs x price x (run + setup) hours, against a budget");
    cost->add_option("scenario", in.cost_scenario, "Scenario JSON, or a Hugging Face config.json")->required()->type_name("FILE");
    cost->add_flag("--json", in.cost_json, "Print JSON for scripts");
    in.cost_budget_option =
        cost->add_option("--budget", in.cost_budget, "Exit with status 3, naming the overrun, when the estimate exceeds DOLLARS (replaces the scenario's budget.dollars)")
            ->type_name("DOLLARS");
}

// The build's hook, hidden from --help: the man page and completions are generated from the definitions above.
void add_generate_command(CLI::App& cli, CliInputs& in) {
    in.generate = cli.add_subcommand("__generate", "Print the man page or a shell's completion script")->group("");
    in.generate->add_option("what", in.generated, "man, bash or zsh")->required()->check(CLI::IsMember({"man", "bash", "zsh"}));
}

// Parses the command line: nullopt to go on, or the exit status (help, version, a usage error).
// Edits (insertions, deletions, substitutions) from a to b: Levenshtein's distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// A first word that is no file and no command but within two edits of one ("evall") is a mistyped command, not a
// scenario to open: refused naming the command it resembles.
std::optional<int> refuse_mistyped_command(const CLI::App& cli, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return std::nullopt;
    const std::string word = argv[1];
    std::error_code ignored;
    if (std::filesystem::exists(word, ignored)) return std::nullopt;
    std::string nearest;
    std::size_t nearest_distance = 3;
    for (const CLI::App* command : cli.get_subcommands([](const CLI::App*) { return true; })) {
        if (command->get_name() == word) return std::nullopt;
        const std::size_t distance = edit_distance(word, command->get_name());
        if (distance < nearest_distance) nearest = command->get_name(), nearest_distance = distance;
    }
    if (nearest.empty()) return std::nullopt;
    return fail("unknown command \"" + word + "\" (did you mean " + nearest + "?)");
}

std::optional<int> parse_command_line(CLI::App& cli, int argc, char** argv) {
    if (const std::optional<int> refused = refuse_mistyped_command(cli, argc, argv)) return refused;
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
    return std::nullopt;
}

int print_generated(const CLI::App& cli, const CliInputs& in) {
    const CliVocabulary vocabulary{kSummary, SHARDSCOPE_VERSION, panel_choices()};
    const std::string text = in.generated == "man"    ? man_page(cli, vocabulary)
                           : in.generated == "bash" ? bash_completion(cli, vocabulary)
                                                    : zsh_completion(cli, vocabulary);
    std::fputs(text.c_str(), stdout);
    return 0;
}

// The file's scenario for plan, with --method applied as the configurator applies it.
core::Scenario plan_scenario_of(const CliInputs& in) {
    core::Scenario scenario = load_scenario_file(in.plan_scenario, core::ScenarioUse::plan);
    if (in.plan_method.empty()) return scenario;
    core::FinetuneMethod method = core::FinetuneMethod::full;
    core::finetune_method_from_name(in.plan_method, method);  // CLI11 has checked the name
    const core::Edit edit = core::with_finetune_method(scenario, method);
    if (!edit.ok()) throw core::InputError(edit.problem->field, edit.problem->reason);
    for (const std::string& note : edit.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    return edit.scenario;
}

int run_plan_command(CliInputs& in) {
    if (in.top < 1 || in.top > 100000) return fail("--top: must be between 1 and 100000");
    if (in.size_requested) {
        if (*in.size_deadline && !(in.size_deadline_days > 0 && in.size_deadline_days <= 1e6)) return fail("--deadline-days: must be between 0 and 1e6");
        if (*in.size_budget_option && !(in.size_budget >= 0 && in.size_budget <= 1e12)) return fail("--budget: must be between 0 and 1e12 dollars");
        if (in.size_options.max_gpus < 1 || in.size_options.max_gpus > 1000000) return fail("--max-gpus: must be between 1 and 1000000");
        in.size_options.top = in.top;
        if (*in.size_deadline) in.size_options.deadline_days = in.size_deadline_days;
        if (*in.size_budget_option) in.size_options.budget_dollars = in.size_budget;
        if (in.plan_csv) return fail("--size: prints its ranking as a table or as JSON, not CSV");
        // As plan itself: a table on a terminal, JSON down a pipe; --json and --table choose.
        in.size_options.json = output_format(in.plan_json, false, in.plan_table) == OutputFormat::json;
        return run_size(plan_scenario_of(in), in.size_options);  // sizing ignores the file's layout
    }
    // plan ignores the file's own layout
    return run_plan(plan_scenario_of(in), {in.top, output_format(in.plan_json, in.plan_csv, in.plan_table)});
}

// --json or --table as asked; otherwise CSV down a pipe and the table on a terminal.
int run_memory_command(const CliInputs& in) {
    const MemoryFormat format = in.memory_json ? MemoryFormat::json : in.memory_table ? MemoryFormat::table
                                : in.memory_csv || !isatty(fileno(stdout)) ? MemoryFormat::csv : MemoryFormat::table;
    return run_memory(load_scenario_file(in.memory_scenario), format, in.memory_stage);
}

int run_cost_command(const CliInputs& in) {
    if (*in.cost_budget_option && !(in.cost_budget >= 0 && in.cost_budget <= 1e12)) return fail("--budget: must be between 0 and 1e12 dollars");
    return run_cost(load_scenario_file(in.cost_scenario), in.cost_json, *in.cost_budget_option ? std::optional<double>(in.cost_budget) : std::nullopt);
}

int run_export_command(const CliInputs& in) {
    ExportOptions options;
    if (!parse_size(in.size, options.width, options.height)) return fail("--size: expected WxH between 64x64 and 16384x16384, got \"" + in.size + "\"");
    if (!(in.scale >= 0.25f && in.scale <= 8.0f)) return fail("--scale: must be between 0.25 and 8");
    if (!(in.t_seconds >= 0 && in.t_seconds <= 1e6)) return fail("--t: must be between 0 and 1e6 seconds");
    std::string error;
    const bool lesson_only = !in.lesson_path.empty() && in.exporter->count("--panel") == 0;
    if (!lesson_only) options.panels = export_targets(in.export_panel, &error);
    if (!error.empty()) return fail(error);
    if (!in.lesson_path.empty()) {
        std::vector<std::string> names;
        for (const widgets::PanelDef& panel : widgets::make_all_panels()) names.push_back(panel.name);
        options.lesson = load_lesson_file(in.lesson_path, names);
    }
    options.scenario = in.export_scenario.empty() ? core::default_scenario() : load_scenario_file(in.export_scenario);
    core::evaluate(options.scenario);  // refuse an invalid scenario before opening a context
    if (!in.export_baseline.empty()) {
        options.baseline = load_named_scenario_file(in.export_baseline);
        options.baseline_name = std::filesystem::path(in.export_baseline).filename().string();
    }
    options.out_dir = in.out_dir;
    options.scale = in.scale;
    if (in.exporter->count("--t")) options.t_seconds = in.t_seconds;
    options.controls = in.keep_controls;
    if (!in.export_sidebar.empty()) options.sidebar = in.export_sidebar == "open" ? SidebarMode::shown : SidebarMode::folded;
    options.light_theme = in.theme == "light";
    std::vector<std::string> written;
    error = run_export(options, &written);
    for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
    if (!error.empty()) {
        std::fprintf(stderr, "shardscope: %s\n", error.c_str());
        return 1;
    }
    return 0;
}

int run_window_command(const CliInputs& in) {
    WindowOptions options;
    options.scenario = in.window_scenario.empty() ? core::default_scenario() : load_scenario_file(in.window_scenario);
    core::evaluate(options.scenario);
    options.scenario_path = in.window_scenario;
    options.light_theme = in.theme == "light";
    return run_window(options);
}

// The command given, or the window; an invalid input is one line on standard error and exit status 2.
int run_command(CliInputs& in) {
    try {
        if (*in.eval) return run_eval(load_scenario_file(in.eval_scenario), output_format(in.eval_json, false, in.eval_table));
        if (*in.diff) return run_diff(in.diff_baseline, in.diff_scenario, output_format(in.diff_json, in.diff_csv, in.diff_table));
        if (*in.trace) return run_trace(load_scenario_file(in.trace_scenario), in.trace_out);
        if (*in.memory) return run_memory_command(in);
        if (*in.recipe) return run_recipe(in.recipe_file, output_format(in.recipe_json, false, in.recipe_table));
        if (*in.serve) return run_serve(load_scenario_file(in.serve_scenario), output_format(in.serve_json, false, in.serve_table));
        if (*in.plan) return run_plan_command(in);
        if (*in.cost) return run_cost_command(in);
        if (*in.scaling) {
            return run_scaling(load_scenario_file(in.scaling_scenario), in.scaling_weak ? core::ScalingMode::weak : core::ScalingMode::strong,
                               in.scaling_max_gpus, output_format(in.scaling_json, in.scaling_csv, in.scaling_table));
        }
        if (*in.run) {
            core::Scenario scenario = load_scenario_file(in.run_scenario);
            if (!in.run_failures.empty()) {
                scenario.operations.failures = core::parse_failure_table_text(read_text_file(in.run_failures, "failure table"), in.run_failures);
            }
            if (in.run->count("--days")) scenario.operations.window_days = in.run_options.days;
            if (in.run->count("--seed")) scenario.operations.run_seed = in.run_options.seed;
            return run_run(scenario, in.run_options, output_format(in.run_json, in.run_csv, in.run_table));
        }
        if (*in.exporter) return run_export_command(in);
        return run_window_command(in);
    } catch (const core::InputError& error) {
        return fail(error.what());
    }
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App cli(std::string("ShardScope: ") + kSummary + ".", "shardscope");
    CliInputs in;
    add_window_options(cli, in);
    add_eval_command(cli, in);
    add_diff_command(cli, in);
    add_serve_command(cli, in);
    add_memory_command(cli, in);
    add_recipe_command(cli, in);
    add_export_command(cli, in);
    add_plan_command(cli, in);
    add_trace_command(cli, in);
    add_cost_command(cli, in);
    add_scaling_command(cli, in);
    add_run_command(cli, in);
    add_generate_command(cli, in);
    if (const std::optional<int> status = parse_command_line(cli, argc, argv)) return *status;
    if (*in.generate) return print_generated(cli, in);
    return run_command(in);
}

}  // namespace app
