#pragma once
// The man page and the bash and zsh completions, generated from the CLI11 definitions so they cannot drift from --help.
//
// Option value kinds come from each option's type name: FILE completes JSON files, DIR directories, PANEL the panel
// names, and a CLI::IsMember check (TEXT:{dark,light}) its choices. What is in the empty group is hidden everywhere.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace app {

// What the CLI11 definitions do not hold: the summary line, the version and the panel registry.
struct CliVocabulary {
    struct Panel {
        std::string name;   // "stack": what --panel takes
        std::string title;  // "The memory stack"
    };
    std::string summary;        // "the cost of distributed LLM training, made visible"
    std::string version;        // CMake's project version
    std::vector<Panel> panels;  // every value --panel takes, in View-menu order, then "window" and "all"
};

std::string man_page(const CLI::App& cli, const CliVocabulary& vocabulary);
std::string bash_completion(const CLI::App& cli, const CliVocabulary& vocabulary);
std::string zsh_completion(const CLI::App& cli, const CliVocabulary& vocabulary);

}  // namespace app
