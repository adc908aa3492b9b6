// doc_commands_test.cpp: the docs' commands against the real CLI and the real tree. Every
// `waferlab-cli ...` line that README.md or a page of docs/ shows (a fenced or indented code
// block, or an inline code span) must parse against the verb table, and the model configs
// and kernels it names must exist; every source file a page names (engine/, cli/, ui/,
// tests/, bench/, tools/, web/) must exist. So a renamed flag, a removed bench or a moved
// file fails here rather than in a reader's shell. docs/performance.md gives each figure's
// command; this is what keeps those commands runnable.
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace wlcli;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = WAFERLAB_SOURCE_DIR;

struct DocCommand {
    std::string where;                // "docs/performance.md:93"
    std::vector<std::string> words;   // after "waferlab-cli"
    bool in_prose = false;            // an inline code span, not a code block
};

std::string read_text(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The words of a shell command line: double quotes group, `[--json]` (an optional part) is
// kept without its brackets, `a|b` (alternatives) is its first, `...` is dropped, and the
// command ends at a comment, a redirection, a pipe, `;` or `&&`.
std::vector<std::string> shell_words(const std::string& text) {
    std::vector<std::string> words;
    std::string w;
    bool quoted = false, in_word = false, was_quoted = false;
    auto finish = [&]() -> bool {   // false: the command ended at this word
        if (!in_word) return true;
        in_word = false;
        std::string word = w;
        w.clear();
        if (!was_quoted) {
            if (word[0] == '#' || word[0] == '>' || word.rfind("2>", 0) == 0 || word == "|" || word == "&&") return false;
            bool ends = !word.empty() && word.back() == ';';
            word.erase(std::remove_if(word.begin(), word.end(), [](char c) { return c == '[' || c == ']' || c == ';'; }), word.end());
            if (size_t bar = word.find('|'); bar != std::string::npos) word = word.substr(0, bar);
            if (!word.empty() && word != "..." && word != "\\") words.push_back(word);
            return !ends;
        }
        words.push_back(word);
        was_quoted = false;
        return true;
    };
    for (char c : text) {
        if (c == '"') {
            quoted = !quoted;
            in_word = was_quoted = true;
        } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
            if (!finish()) return words;
        } else {
            w += c;
            in_word = true;
        }
    }
    finish();
    return words;
}

// Every waferlab-cli command of one markdown file. A fenced line ending in `\` goes on on
// the next line. Printed output (`waferlab-cli train: error: ...`) is not a command.
std::vector<DocCommand> doc_commands(const std::string& name, const std::string& text) {
    std::vector<DocCommand> out;
    std::istringstream in(text);
    std::string line, carry;
    bool fence = false;
    int n = 0, carry_line = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.find_first_not_of(' ') != std::string::npos && line.compare(line.find_first_not_of(' '), 3, "```") == 0) {
            fence = !fence;
            continue;
        }
        std::vector<std::string> spans;
        const bool block = fence || (line.rfind("    ", 0) == 0 && line.find('`') == std::string::npos);
        if (block) {
            if (!carry.empty()) {
                line = carry + " " + line;
                carry.clear();
            }
            if (!line.empty() && line.back() == '\\') {
                carry = line.substr(0, line.size() - 1);
                carry_line = carry_line ? carry_line : n;
                continue;
            }
            spans.push_back(line);
        } else {
            for (size_t a = line.find('`'); a != std::string::npos;) {
                size_t b = line.find('`', a + 1);
                if (b == std::string::npos) break;
                spans.push_back(line.substr(a + 1, b - a - 1));
                a = line.find('`', b + 1);
            }
        }
        const int at = carry_line ? carry_line : n;
        carry_line = 0;
        for (const std::string& s : spans) {
            static const std::string kCli = "waferlab-cli ";
            size_t i = s.find(kCli);
            if (i == std::string::npos) continue;
            std::vector<std::string> words = shell_words(s.substr(i + kCli.size()));
            if (words.empty() || words[0].back() == ':') continue;
            out.push_back({name + ":" + std::to_string(at), words, !block});
        }
    }
    return out;
}

// README.md and every page of docs/, as (name, text).
std::vector<std::pair<std::string, std::string>> doc_files() {
    std::vector<std::pair<std::string, std::string>> files{{"README.md", read_text(kRoot + "/README.md")}};
    std::vector<fs::path> pages;
    for (const auto& e : fs::directory_iterator(kRoot + "/docs"))
        if (e.path().extension() == ".md") pages.push_back(e.path());
    std::sort(pages.begin(), pages.end());
    for (const fs::path& p : pages) files.push_back({"docs/" + p.filename().string(), read_text(p)});
    return files;
}

// Prose names a verb and its flags without always giving a whole command line: `waferlab-cli
// run --mode fast` (no kernel file), `waferlab-cli generate --checkpoint` (no value). The words
// to parse for such a span: its last flag's missing value left out (its name still checked)
// and a stand-in for a required positional it does not give. Unknown words stay, so the parser
// still refuses them.
std::vector<std::string> as_command_line(const std::vector<std::string>& words) {
    const std::vector<Verb>* verbs = &verb_table();
    const Verb* verb = nullptr;
    size_t i = 0;
    for (; i < words.size(); ++i) {
        auto v = std::find_if(verbs->begin(), verbs->end(), [&](const Verb& x) { return words[i] == x.name; });
        if (v == verbs->end()) break;
        verb = &*v;
        verbs = &v->subverbs;
        if (verbs->empty()) {
            ++i;
            break;
        }
    }
    if (!verb || !verb->run) return words;
    std::vector<std::string> out(words.begin(), words.begin() + long(i));
    int positionals = 0;
    for (; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.rfind("--", 0) != 0) {
            ++positionals;
            out.push_back(w);
            continue;
        }
        auto f = std::find_if(verb->flags.begin(), verb->flags.end(), [&](const Flag& x) { return w.substr(2) == x.name; });
        const bool takes_value = f != verb->flags.end() && f->value != Value::Switch;
        if (takes_value && i + 1 == words.size()) break;   // a known flag, named without its value
        out.push_back(w);
        if (takes_value) out.push_back(words[++i]);
    }
    if (verb->positional_required && positionals == 0) out.push_back("file");
    return out;
}

// What is wrong with one command: the parser's error, or a config or kernel it names that
// the tree lacks. "" when it would run. A name in capitals (`models/kernels/NAME.wk`) is a
// placeholder.
std::string check_command(const DocCommand& c) {
    const std::vector<std::string> words = c.in_prose ? as_command_line(c.words) : c.words;
    std::vector<const char*> argv{"waferlab-cli"};
    for (const std::string& w : words) argv.push_back(w.c_str());
    CommandLine cl = parse_command_line(verb_table(), int(argv.size()), argv.data());
    if (cl.status != 0 || !cl.err.empty()) return cl.err.empty() ? "exit status " + std::to_string(cl.status) : cl.err;
    for (const std::string& w : c.words) {
        const bool file = w.size() > 5 && (w.ends_with(".yaml") || w.ends_with(".wk"));
        if (!file || w.find('/') == std::string::npos || w[0] == '/' || w.rfind("../", 0) == 0 || w.rfind("build/", 0) == 0) continue;
        const std::string stem = fs::path(w).stem().string();
        if (std::all_of(stem.begin(), stem.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)) || ch == '_'; })) continue;
        if (!fs::exists(kRoot + "/" + w)) return w + " does not exist";
    }
    return "";
}

std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

}  // namespace

TEST(DocCommands, TheExtractorReadsBlocksSpansAndContinuations) {
    const std::string md =
        "Run `waferlab-cli bench fast --reps 7 --json` twice.\n"
        "```sh\n"
        "build/native/cli/waferlab-cli bench mesh-gpt --train [--json]   # a comment --bogus\n"
        "build/native/cli/waferlab-cli train --config models/gpt-nano.yaml \\\n"
        "    --on-mesh --steps 1 > out.jsonl\n"
        "$ waferlab-cli forward --prompt \"Once upon\" --mode cycle|fast\n"
        "waferlab-cli train: error: unknown flag --step\n"
        "```\n"
        "    waferlab-cli bench fabric --mesh 32\n";
    std::vector<DocCommand> cs = doc_commands("x.md", md);
    ASSERT_EQ(cs.size(), 5u);
    EXPECT_EQ(joined(cs[0].words), "bench fast --reps 7 --json");
    EXPECT_EQ(cs[0].where, "x.md:1");
    EXPECT_EQ(joined(cs[1].words), "bench mesh-gpt --train --json");
    EXPECT_EQ(joined(cs[2].words), "train --config models/gpt-nano.yaml --on-mesh --steps 1");
    EXPECT_EQ(cs[2].where, "x.md:4");
    EXPECT_EQ(cs[3].words, (std::vector<std::string>{"forward", "--prompt", "Once upon", "--mode", "cycle"}));
    EXPECT_EQ(joined(cs[4].words), "bench fabric --mesh 32");
    for (const DocCommand& c : cs) EXPECT_EQ(check_command(c), "") << c.where << ": " << joined(c.words);
    // Prose may name a verb and flags without the kernel file or the last flag's value.
    cs = doc_commands("y.md", "`waferlab-cli run --mode fast` and `waferlab-cli generate --checkpoint`, `waferlab-cli check`\n");
    ASSERT_EQ(cs.size(), 3u);
    for (const DocCommand& c : cs) EXPECT_EQ(check_command(c), "") << c.where << ": " << joined(c.words);
}

TEST(DocCommands, ARenamedFlagAMissingBenchOrAMissingConfigFails) {
    const std::string md =
        "`waferlab-cli bench fast --pp 16`\n"
        "`waferlab-cli bench frobnicate`\n"
        "`waferlab-cli bench mesh-gpt --t N`\n"
        "`waferlab-cli forward --config models/gpt-none.yaml`\n"
        "`waferlab-cli run --mde fast` and `waferlab-cli generate --chekpoint`\n";
    std::vector<DocCommand> cs = doc_commands("x.md", md);
    ASSERT_EQ(cs.size(), 6u);
    EXPECT_NE(check_command(cs[0]).find("--pp"), std::string::npos) << check_command(cs[0]);
    EXPECT_NE(check_command(cs[1]).find("frobnicate"), std::string::npos) << check_command(cs[1]);
    EXPECT_NE(check_command(cs[2]).find("expects an integer"), std::string::npos) << check_command(cs[2]);
    EXPECT_EQ(check_command(cs[3]), "models/gpt-none.yaml does not exist");
    EXPECT_NE(check_command(cs[4]).find("unknown flag --mde"), std::string::npos) << check_command(cs[4]);
    EXPECT_NE(check_command(cs[5]).find("unknown flag --chekpoint"), std::string::npos) << check_command(cs[5]);
}

TEST(DocCommands, EveryCommandInTheDocsParses) {
    size_t in_performance = 0;
    for (const auto& [name, text] : doc_files()) {
        for (const DocCommand& c : doc_commands(name, text)) {
            if (name == "docs/performance.md") ++in_performance;
            EXPECT_EQ(check_command(c), "") << c.where << ": waferlab-cli " << joined(c.words);
        }
    }
    // performance.md gives a command for each table; an extractor that found none would pass
    // every page vacuously.
    EXPECT_GE(in_performance, 15u);
}

TEST(DocCommands, EverySourceFileTheDocsNameExists) {
    // A path into the code folders, not inside a longer path (build/web/... is a build output).
    static const std::regex kPath(R"((^|[^\w./-])((engine|cli|ui|tests|bench|tools|web)/[\w./-]*\.(h|cpp|mjs|js|sh|py|cmake))\b)");
    size_t named = 0;
    for (const auto& [name, text] : doc_files()) {
        std::istringstream in(text);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            for (std::sregex_iterator m(line.begin(), line.end(), kPath), end; m != end; ++m) {
                const std::string path = (*m)[2];
                ++named;
                EXPECT_TRUE(fs::exists(kRoot + "/" + path)) << name << ":" << n << ": " << path << " does not exist";
            }
        }
    }
    EXPECT_GE(named, 100u);
}
