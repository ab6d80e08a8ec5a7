#include "app/cli_docs.h"

#include <CLI/CLI.hpp>

#include <sstream>

namespace app {
namespace {

// One option or positional as the generators see it.
struct Argument {
    std::vector<std::string> flags;    // "-h", "--help"; empty for a positional
    std::string positional;            // "scenario"
    std::string type;                  // "FILE", "PANEL", "FLOAT"; empty for a flag
    std::vector<std::string> choices;  // the values a CLI::IsMember check accepts
    std::string description;
    bool required = false;

    bool is_positional() const { return flags.empty(); }
    bool takes_value() const { return !type.empty(); }
    bool is_help() const { return !flags.empty() && flags.back() == "--help"; }
};

struct Command {
    std::string name;  // empty for the program itself
    std::string description;
    std::vector<Argument> arguments;  // in definition order
    std::vector<Argument> options() const { return select(false); }
    std::vector<Argument> positionals() const { return select(true); }

private:
    std::vector<Argument> select(bool positional) const {
        std::vector<Argument> selected;
        for (const Argument& argument : arguments)
            if (argument.is_positional() == positional) selected.push_back(argument);
        return selected;
    }
};

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::istringstream stream(text);
    for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
    return parts;
}

Argument describe(const CLI::Option& option) {
    Argument argument;
    for (const std::string& name : option.get_snames()) argument.flags.push_back("-" + name);
    for (const std::string& name : option.get_lnames()) argument.flags.push_back("--" + name);
    if (option.get_positional()) argument.positional = option.get_name(true);
    if (option.get_type_size_max() > 0) {
        // "TEXT:{dark,light}": the type, then the description of each check; IsMember's is its set of choices.
        const std::string type_name = option.get_type_name();
        argument.type = type_name.substr(0, type_name.find(':'));
        for (const std::string& check : split(type_name, ':'))
            if (check.size() > 2 && check.front() == '{' && check.back() == '}') argument.choices = split(check.substr(1, check.size() - 2), ',');
    }
    argument.description = option.get_description();
    argument.required = option.get_required();
    return argument;
}

Command describe(const CLI::App& app) {
    Command command{app.get_name(), app.get_description(), {}};
    // Options in the empty group are hidden: no page or completion mentions them.
    for (const CLI::Option* option : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); }))
        command.arguments.push_back(describe(*option));
    return command;
}

// The program first, then each visible subcommand in definition order (the hidden one is the build's hook).
std::vector<Command> describe_all(const CLI::App& cli) {
    std::vector<Command> commands{describe(cli)};
    commands.front().name.clear();
    for (const CLI::App* sub : cli.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
        commands.push_back(describe(*sub));
    return commands;
}

std::string program_name(const CLI::App& cli) { return cli.get_name(); }

// ---- man page (roff, man macros) ----

// Plain text for roff: backslashes escaped, a leading '.' or '\'' kept from being read as a request.
std::string roff(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') out += "\\e";
        else out += c;
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out = "\\&" + out;
    return out;
}

// An option name: '-' as \- so it copies and searches as the ASCII minus a shell needs.
std::string roff_flag(const std::string& flag) {
    std::string out;
    for (char c : flag) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

std::string sentence(const std::string& text) {
    if (text.empty() || text.back() == '.') return roff(text);
    return roff(text) + ".";
}

std::string roff_value(const Argument& argument) {
    if (argument.choices.empty()) return "\\fI" + roff(argument.type) + "\\fR";
    std::string out;
    for (const std::string& choice : argument.choices) out += (out.empty() ? "" : "|") + std::string("\\fB") + roff(choice) + "\\fR";
    return out;
}

// "\fB\-h\fR, \fB\-\-help\fR" or "\fB\-\-panel\fR \fIPANEL\fR" or "\fIscenario\fR".
std::string roff_term(const Argument& argument) {
    if (argument.is_positional()) return "\\fI" + roff(argument.positional) + "\\fR";
    std::string out;
    for (const std::string& flag : argument.flags) out += (out.empty() ? "" : ", ") + std::string("\\fB") + roff_flag(flag) + "\\fR";
    if (argument.takes_value()) out += " " + roff_value(argument);
    return out;
}

void man_synopsis(std::ostream& out, const std::string& program, const Command& command) {
    out << ".SY " << (command.name.empty() ? program : "\"" + program + " " + command.name + "\"") << "\n";
    for (const Argument& option : command.options()) {
        if (option.is_help() || option.flags.front() == "--version") continue;  // listed under OPTIONS, not usage
        // \~ keeps an option and its value on one line when the synopsis wraps.
        out << "[\\fB" << roff_flag(option.flags.back()) << "\\fR" << (option.takes_value() ? "\\~" + roff_value(option) : "") << "]\n";
    }
    for (const Argument& positional : command.positionals())
        out << (positional.required ? "" : "[") << "\\fI" << roff(positional.positional) << "\\fR" << (positional.required ? "" : "]") << "\n";
    out << ".YS\n";
}

void man_arguments(std::ostream& out, const Command& command, bool with_help) {
    for (const Argument& argument : command.arguments) {
        if (argument.is_help() && !with_help) continue;
        out << ".TP\n" << roff_term(argument) << "\n" << sentence(argument.description) << "\n";
    }
}

// What --help does not say: the prose around the generated sections.
constexpr const char* kDescription = R"(.B shardscope
makes the cost of distributed LLM training something you can drag, watch and screenshot.
One pure cost model computes every figure, each traceable to a formula and a paper: why a 70B model
cannot train on one 80 GB GPU (16 bytes per parameter), what data parallelism's all-reduce costs,
how ZeRO trades memory for traffic, where a kernel sits on the roofline, why a pipeline has a bubble
and how 1F1B and interleaving shrink it.
.PP
Without a command,
.B shardscope
opens its window on the default scenario, or on
.I scenario
if given.
The commands print the same figures, render the window's panels to PNG files without showing
a window, rank the parallel layouts that fit, write the modelled step as a Chrome trace, say what a run costs
before it runs, and size the cheapest cluster for a deadline.
.PP
.B eval
and
.B plan
print an aligned table when standard output is a terminal (as
.BR isatty (3)
tells), and JSON when it is a pipe or a file, so scripts read JSON unchanged;
.BR \-\-json ,
.B \-\-table
and (for
.BR plan )
.B \-\-csv
choose explicitly.
.PP
A scenario file is JSON that names only what differs from the defaults: Llama 3 70B, bf16 mixed
precision with an fp32 master copy and Adam (16 bytes per parameter), H100 SXM GPUs, 8 per node, 64 GPUs.
For example:
.PP
.RS 4
.EX
{
  "model": { "preset": "llama3\-405b" },
  "train": { "seq_len": 8192, "global_batch": 2048 },
  "parallel": { "tp": 8, "pp": 16, "zero": 1 },
  "cluster": { "gpu": "h100\-sxm", "gpus": 16384 }
}
.EE
.RE
.PP
Invalid input (malformed JSON, an unknown key, a negative GPU count, TP that does not divide the heads)
is refused with one line on standard error that names the field and the reason.
Units are decimal SI throughout (1 GB = 10^9 bytes), as the papers use.
)";

constexpr const char* kTrailingSections = R"(.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 1
The export could not open a display, create an OpenGL context or write a file, or the trace could not write its file.
.TP
.B 2
Invalid input: a usage error, or a scenario or lesson file that cannot be read or is refused.
.TP
.B 3
Over budget, or nothing fits:
.B cost
found the estimate above the budget (the scenario's
.I budget.dollars
or
.BR \-\-budget ),
or
.B plan \-\-size
found no cluster within the deadline and the budget, or
.B plan
found no layout that fits in HBM. The line on standard error names the overrun.
.SH ENVIRONMENT
.TP
.B SHARDSCOPE_ASSETS
The directory to read lessons, example scenarios and measured roofline points from, instead of
the one installed with the program.
.TP
.B XDG_CONFIG_HOME
Window settings and recent files are kept in
.IR $XDG_CONFIG_HOME/shardscope/settings.json ,
by default
.IR ~/.config/shardscope/settings.json .
.TP
.B DISPLAY
.B export
renders with OpenGL in a hidden window, so it needs an X display; on a machine without one, run it
under
.BR xvfb\-run (1).
.SH FILES
.TP
.I share/shardscope/
Beside the program's
.I bin/
directory (for example
.IR /usr/local/share/shardscope/ ):
.I scenarios/
holds example scenarios,
.I lessons/
the presentation lessons, and the JSON catalogs list the model presets, GPUs and precision recipes
that scenarios name.
.B shardscope \-\-version
prints the directory in use.
.SH EXAMPLES
Print every figure of a shipped scenario:
.PP
.RS 4
.EX
shardscope eval /usr/local/share/shardscope/scenarios/llama3\-405b\-16k.json
.EE
.RE
.PP
Write the stack panel at twice the resolution, for a print document:
.PP
.RS 4
.EX
shardscope export \-\-panel stack \-\-scale 2 \-\-theme light \-\-out figures
.EE
.RE
.PP
On a server without a display:
.PP
.RS 4
.EX
xvfb\-run \-a shardscope export \-\-panel all \-\-out figures
.EE
.RE
.PP
Rank the 20 best layouts for a scenario, then the same as CSV for a spreadsheet:
.PP
.RS 4
.EX
shardscope plan \-\-top 20 my\-run.json
shardscope plan \-\-top 20 \-\-csv my\-run.json > layouts.csv
.EE
.RE
.PP
Write the modelled step as a trace, to open in Perfetto (ui.perfetto.dev) or chrome://tracing:
.PP
.RS 4
.EX
shardscope trace my\-run.json \-\-out my\-run.trace.json
.EE
.RE
.PP
Before renting, write down what a run costs, and refuse it above $3:
.PP
.RS 4
.EX
shardscope cost \-\-budget 3 /usr/local/share/shardscope/scenarios/gpt2\-124m\-2x\-rtx4090\-spot.json
.EE
.RE
.PP
The cheapest GPU type, count and layout that trains a 7B model on 140B tokens within 14 days:
.PP
.RS 4
.EX
shardscope plan \-\-size \-\-deadline\-days 14 /usr/local/share/shardscope/scenarios/llama2\-7b\-140b\-tokens\-14\-days.json
.EE
.RE
.SH SEE ALSO
.BR xvfb\-run (1),
.BR isatty (3)
)";

// ---- completion helpers ----

std::string join(const std::vector<std::string>& words, const std::string& separator = " ") {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : separator) + word;
    return out;
}

// Every option name a command accepts: what completes after a '-'.
std::vector<std::string> flag_words(const Command& command) {
    std::vector<std::string> words;
    for (const Argument& option : command.options())
        for (const std::string& flag : option.flags) words.push_back(flag);
    return words;
}

std::vector<std::string> panel_names(const CliVocabulary& vocabulary) {
    std::vector<std::string> names;
    for (const CliVocabulary::Panel& panel : vocabulary.panels) names.push_back(panel.name);
    return names;
}

// Inside a single-quoted shell word.
std::string single_quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// ---- zsh ----

// Text inside an _arguments spec: brackets and colons are its syntax.
std::string zsh_spec_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

std::string zsh_action(const Argument& argument, const CliVocabulary& vocabulary) {
    if (!argument.choices.empty()) return "(" + join(argument.choices) + ")";
    if (argument.type == "FILE") return "_files -g \"*.json(-.)\"";
    if (argument.type == "DIR") return "_files -/";
    if (argument.type == "PANEL") {
        std::string items;
        for (const CliVocabulary::Panel& panel : vocabulary.panels) {
            std::string title;
            for (char c : panel.title) title += (c == '"' || c == '\\' || c == ':') ? "\\" + std::string(1, c) : std::string(1, c);
            items += (items.empty() ? "" : " ") + zsh_spec_text(panel.name) + "\\:\"" + title + "\"";
        }
        return "((" + items + "))";
    }
    return " ";  // a number or a size: nothing to offer, zsh shows the message
}

std::string zsh_message(const Argument& argument) {
    if (argument.type == "FILE") return "JSON file";
    if (argument.type == "DIR") return "directory";
    if (argument.type == "PANEL") return "panel";
    if (!argument.choices.empty()) return argument.flags.empty() ? argument.positional : argument.flags.back().substr(2);
    return argument.description;
}

// The _arguments specs of one command, one per line, each a shell word.
std::vector<std::string> zsh_specs(const Command& command, const CliVocabulary& vocabulary) {
    std::vector<std::string> specs;
    int position = 0;
    for (const Argument& argument : command.arguments) {
        const std::string message = zsh_spec_text(zsh_message(argument));
        if (argument.is_positional()) {
            ++position;
            specs.push_back(single_quoted(std::to_string(position) + (argument.required ? ":" : "::") + message + ":" + zsh_action(argument, vocabulary)));
            continue;
        }
        const std::string description = "[" + zsh_spec_text(argument.description) + "]";
        // Help and version end the command line, so nothing completes beside them.
        const bool terminal = argument.is_help() || argument.flags.back() == "--version";
        const std::string exclusions = terminal ? "(- : *)" : "";
        const std::string value = argument.takes_value() ? "=:" + message + ":" + zsh_action(argument, vocabulary) : "";
        if (argument.flags.size() == 1) {
            specs.push_back(single_quoted(exclusions + argument.flags.front() + (argument.takes_value() ? value.substr(0, 1) + description + value.substr(1) : description)));
        } else {
            std::string group = single_quoted(exclusions) + "{" + join(argument.flags, ",") + "}";
            specs.push_back(group + single_quoted(argument.takes_value() ? value.substr(0, 1) + description + value.substr(1) : description));
        }
    }
    return specs;
}

// -S: "--" ends the options; -C: a state may change $curcontext.
void zsh_arguments_call(std::ostream& out, const std::vector<std::string>& specs, const std::string& indent, const char* flags = "-S") {
    out << indent << "_arguments " << flags;
    for (const std::string& spec : specs) out << " \\\n" << indent << "  " << spec;
}

// ---- bash ----

// The bash action for a value: fills COMPREPLY and returns.
std::string bash_value_action(const Argument& argument, const CliVocabulary& vocabulary) {
    if (!argument.choices.empty()) return "COMPREPLY=($(compgen -W " + single_quoted(join(argument.choices)) + " -- \"$cur\"))";
    if (argument.type == "FILE") return "_shardscope_json_files \"$cur\"";
    if (argument.type == "DIR") return "_shardscope_directories \"$cur\"";
    if (argument.type == "PANEL") return "COMPREPLY=($(compgen -W " + single_quoted(join(panel_names(vocabulary))) + " -- \"$cur\"))";
    return ":";  // a number or a size: nothing to offer
}

}  // namespace

std::string man_page(const CLI::App& cli, const CliVocabulary& vocabulary) {
    const std::vector<Command> commands = describe_all(cli);
    const std::string program = program_name(cli);
    std::ostringstream out;
    out << ".\\\" Generated by `" << program << " __generate man` from the command-line definitions in app/cli.cpp: edit those, not this file.\n";
    std::string upper = program;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // No date: the page is regenerated on every build, and a date would make identical builds differ.
    out << ".TH " << upper << " 1 \"\" \"ShardScope " << roff(vocabulary.version) << "\" \"User Commands\"\n";
    out << ".SH NAME\n" << program << " \\- " << roff(vocabulary.summary) << "\n";
    out << ".SH SYNOPSIS\n";
    for (const Command& command : commands) man_synopsis(out, program, command);
    out << ".SH DESCRIPTION\n" << kDescription;
    out << ".SH OPTIONS\n";
    man_arguments(out, commands.front(), true);
    out << ".SH COMMANDS\n";
    for (std::size_t i = 1; i < commands.size(); ++i) {
        out << ".SS " << commands[i].name << "\n" << sentence(commands[i].description) << "\n";
        man_arguments(out, commands[i], false);
    }
    out << ".SH PANELS\nWhat\n.B export \\-\\-panel\ntakes, in the order of the window's View menu:\n";
    for (const CliVocabulary::Panel& panel : vocabulary.panels) out << ".TP\n.B " << roff(panel.name) << "\n" << sentence(panel.title) << "\n";
    out << kTrailingSections;
    return out.str();
}

std::string bash_completion(const CLI::App& cli, const CliVocabulary& vocabulary) {
    const std::vector<Command> commands = describe_all(cli);
    const std::string program = program_name(cli);
    std::vector<std::string> subcommand_names;
    for (std::size_t i = 1; i < commands.size(); ++i) subcommand_names.push_back(commands[i].name);

    std::ostringstream out;
    out << "# bash completion for " << program << "                                    -*- shell-script -*-\n"
        << "# Generated by `" << program << " __generate bash` from the command-line definitions in app/cli.cpp: edit those, not this file.\n\n";
    out << R"(# Scenario and lesson files are JSON; directories are offered too, to walk into.
_shardscope_json_files() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -X '!*.json' -- "$1") $(compgen -d -- "$1"))
}

_shardscope_directories() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -d -- "$1"))
}

_shardscope() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    # bash splits --option=value at '=': complete the value of the option before it.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi

    # The command is the first word that is not an option or an option's value.
    local command= i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
)";
    std::vector<std::string> top_value_flags;
    for (const Argument& option : commands.front().options())
        if (option.takes_value())
            for (const std::string& flag : option.flags) top_value_flags.push_back(flag);
    if (!top_value_flags.empty()) out << "            " << join(top_value_flags, "|") << ") ((i++)) ;;\n";
    out << "            " << join(subcommand_names, "|") << ") command=${COMP_WORDS[i]}; break ;;\n"
        << "        esac\n    done\n\n";

    out << "    case $command:$prev in\n";
    for (const Command& command : commands)
        for (const Argument& option : command.options()) {
            if (!option.takes_value()) continue;
            std::vector<std::string> patterns;
            for (const std::string& flag : option.flags) patterns.push_back(command.name + ":" + flag);
            out << "        " << join(patterns, "|") << ") " << bash_value_action(option, vocabulary) << "; return ;;\n";
        }
    out << "    esac\n\n";

    out << "    case $command in\n";
    for (const Command& command : commands) {
        out << "        " << (command.name.empty() ? "''" : command.name) << ")\n";
        const std::string flags = "COMPREPLY=($(compgen -W " + single_quoted(join(flag_words(command))) + " -- \"$cur\"))";
        const std::vector<Argument> positionals = command.positionals();
        if (positionals.empty() && !command.name.empty()) {
            out << "            " << flags << " ;;\n";
            continue;
        }
        out << "            if [[ $cur == -* ]]; then\n                " << flags << "\n                return\n            fi\n";
        for (const Argument& positional : positionals) out << "            " << bash_value_action(positional, vocabulary) << "\n";
        if (command.name.empty())
            out << "            COMPREPLY+=($(compgen -W " << single_quoted(join(subcommand_names)) << " -- \"$cur\"))\n";
        out << "            ;;\n";
    }
    out << "    esac\n}\n\ncomplete -F _shardscope " << program << "\n";
    return out.str();
}

std::string zsh_completion(const CLI::App& cli, const CliVocabulary& vocabulary) {
    const std::vector<Command> commands = describe_all(cli);
    const std::string program = program_name(cli);
    std::ostringstream out;
    out << "#compdef " << program << "\n"
        << "# zsh completion for " << program << ".\n"
        << "# Generated by `" << program << " __generate zsh` from the command-line definitions in app/cli.cpp: edit those, not this file.\n\n";

    out << "_shardscope_commands() {\n  local -a commands=(\n";
    for (std::size_t i = 1; i < commands.size(); ++i)
        out << "    " << single_quoted(commands[i].name + ":" + commands[i].description) << "\n";
    out << "  )\n  _describe -t commands command commands\n}\n\n";

    // The program's own positionals become a state: the first word is either a command or a scenario file.
    Command top = commands.front();
    std::vector<Argument> top_positionals = top.positionals();
    top.arguments = top.options();
    std::vector<std::string> top_specs = zsh_specs(top, vocabulary);
    top_specs.push_back("'1: :->command-or-file'");
    top_specs.push_back("'*:: :->command-arguments'");

    out << "_shardscope() {\n  local curcontext=$curcontext state state_descr line ret=1\n  typeset -A opt_args\n\n";
    zsh_arguments_call(out, top_specs, "  ", "-C -S");
    out << " && ret=0\n\n  case $state in\n    (command-or-file)\n      _alternative 'commands:command:_shardscope_commands'";
    for (const Argument& positional : top_positionals)
        out << " " << single_quoted("files:" + zsh_spec_text(zsh_message(positional)) + ":" + zsh_action(positional, vocabulary));
    out << " && ret=0\n      ;;\n    (command-arguments)\n      curcontext=${curcontext%:*:*}:" << program << "-$words[1]:\n      case $words[1] in\n";
    for (std::size_t i = 1; i < commands.size(); ++i) {
        out << "        (" << commands[i].name << ")\n";
        zsh_arguments_call(out, zsh_specs(commands[i], vocabulary), "          ");
        out << " && ret=0\n          ;;\n";
    }
    out << "      esac\n      ;;\n  esac\n  return ret\n}\n\n_shardscope \"$@\"\n";
    return out.str();
}

}  // namespace app
