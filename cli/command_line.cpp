// command_line.cpp: see command_line.h.
#include "cli/command_line.h"

#include "engine/core/parse_number.h"
#include "engine/gpt/gpt_config.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

namespace wlcli {

namespace {

const char* kProgram = "waferlab-cli";

std::vector<std::string> split_choices(const char* choices) {
    std::vector<std::string> out;
    std::istringstream in(choices);
    std::string c;
    while (std::getline(in, c, '|')) out.push_back(c);
    return out;
}

// Int and Number flags go through the one number parser (engine/core/parse_number.h), in their range.
CLI::Validator integer_value(wl::NumberRange r) {
    return CLI::Validator(
        [r](std::string& s) -> std::string {
            long long v = 0;
            return wl::integer_or_why(s, r, &v);
        },
        "");
}

CLI::Validator number_value(wl::NumberRange r) {
    return CLI::Validator(
        [r](std::string& s) -> std::string {
            double v = 0;
            return wl::real_or_why(s, r, &v);
        },
        "");
}

CLI::Validator one_of(const char* choices) {
    std::vector<std::string> list = split_choices(choices);
    return CLI::Validator(
        [list, choices = std::string(choices)](std::string& s) -> std::string {
            if (std::find(list.begin(), list.end(), s) != list.end()) return "";
            std::string msg = "expects one of " + choices + ", got '" + s + "'";
            std::string near = nearest(s, list);
            if (!near.empty()) msg += " (did you mean " + near + "?)";
            return msg;
        },
        "");
}

std::string type_name(const Flag& f) {
    if (f.choices) return f.choices;
    switch (f.value) {
        case Value::Int: return "INT";
        case Value::Number: return "NUMBER";
        default: return "TEXT";
    }
}

void add_verb(CLI::App& parent, const Verb& v) {
    CLI::App* sub = parent.add_subcommand(v.name, v.help);
    if (v.positional) {
        const std::string what = v.positional;
        CLI::Option* o = sub->add_option(what, what);
        if (v.positional_required) o->required();
        if (v.positional_choices) o->check(one_of(v.positional_choices));
    }
    if (v.positional2) sub->add_option(v.positional2, v.positional2);
    for (const Flag& f : v.flags) {
        const std::string name = std::string("--") + f.name;
        if (f.value == Value::Switch) {
            sub->add_flag(name, f.help)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
            continue;
        }
        // const: a non-const string would bind as the option's result variable, not its description
        const std::string help = f.value == Value::Int || f.value == Value::Number ? std::string(f.help) + " [" + f.range.text() + "]" : f.help;
        CLI::Option* o = sub->add_option(name, help);
        o->type_name(type_name(f))->multi_option_policy(f.repeats ? CLI::MultiOptionPolicy::TakeAll : CLI::MultiOptionPolicy::TakeLast);
        if (f.choices) o->check(one_of(f.choices));
        else if (f.value == Value::Int) o->check(integer_value(f.range));
        else if (f.value == Value::Number) o->check(number_value(f.range));
    }
    for (const Verb& s : v.subverbs) add_verb(*sub, s);
    if (!v.run) sub->require_subcommand(1);
}

void build_app(CLI::App& app, const std::vector<Verb>& verbs) {
    app.require_subcommand(1);
    app.footer("`waferlab-cli <verb> --help` lists a verb's flags.");
    for (const Verb& v : verbs) add_verb(app, v);
    app.add_subcommand("help", "this text; `help <verb>` for one verb's flags")->allow_extras();
}

// The parsed chain of subcommands, outermost first, with its table rows.
struct Chain {
    std::vector<CLI::App*> apps;
    std::vector<const Verb*> verbs;
};

Chain parsed_chain(CLI::App& app, const std::vector<Verb>& verbs) {
    Chain c;
    CLI::App* a = &app;
    const std::vector<Verb>* list = &verbs;
    for (;;) {
        auto subs = a->get_subcommands();
        if (subs.empty()) break;
        a = subs.front();
        auto it = std::find_if(list->begin(), list->end(), [&](const Verb& v) { return a->get_name() == v.name; });
        if (it == list->end()) break;   // "help"
        c.apps.push_back(a);
        c.verbs.push_back(&*it);
        list = &it->subverbs;
    }
    return c;
}

std::string verb_path(const Chain& c) {
    std::string s = kProgram;
    for (const Verb* v : c.verbs) s += std::string(" ") + v->name;
    return s;
}

// "waferlab-cli bench" for "waferlab-cli bench fabric": what CLI11 puts before a verb's usage.
std::string parent_path(const Chain& c) {
    std::string s = kProgram;
    for (size_t k = 0; k + 1 < c.verbs.size(); ++k) s += std::string(" ") + c.verbs[k]->name;
    return s;
}

std::string names_of(const std::vector<Verb>& verbs) {
    std::string s;
    for (const Verb& v : verbs) s += (s.empty() ? "" : ", ") + std::string(v.name);
    return s;
}

// Names the first word the deepest verb did not take, and what was probably meant.
std::string explain_extras(const Chain& c, const std::vector<Verb>& verbs, const std::vector<std::string>& top_extras) {
    const Verb* v = c.verbs.empty() ? nullptr : c.verbs.back();
    std::vector<std::string> rest = c.apps.empty() ? top_extras : c.apps.back()->remaining();
    if (rest.empty()) rest = top_extras;
    if (rest.empty()) return "unexpected arguments";
    const std::string& w = rest.front();
    std::vector<std::string> names;
    if (w.rfind("-", 0) == 0) {
        if (v)
            for (const Flag& f : v->flags) names.push_back(std::string("--") + f.name);
        names.push_back("--help");
        std::string msg = "unknown flag " + w;
        std::string near = nearest(w.substr(0, w.find('=')), names);
        return msg + (near.empty() ? "" : " (did you mean " + near + "?)");
    }
    for (const Verb& s : v ? v->subverbs : verbs) names.push_back(s.name);
    std::string msg = v && v->subverbs.empty() ? "unexpected argument '" + w + "'" : "unknown verb '" + w + "'";
    std::string near = nearest(w, names);
    return msg + (near.empty() ? "" : " (did you mean " + near + "?)");
}

}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diag = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
                diag = up;
            }
        }
        return row[b.size()];
    };
    std::string best;
    size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;   // more edits than this: not a typo
    for (const std::string& c : candidates) {
        size_t d = distance(word, c);
        if (c.rfind(word, 0) == 0 && word.size() >= 4) d = std::min<size_t>(d, 1);   // an abbreviation
        if (d < best_d) best_d = d, best = c;
    }
    return best;
}

CommandLine parse_command_line(const std::vector<Verb>& verbs, int argc, const char* const* argv) {
    CommandLine cl;
    CLI::App app{"waferlab-cli: the headless front door to the engine", kProgram};
    build_app(app, verbs);
    if (argc < 2) {
        cl.err = app.help();
        cl.status = 2;
        return cl;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        Chain c = parsed_chain(app, verbs);
        cl.out = c.apps.empty() ? app.help() : c.apps.back()->help(parent_path(c));
        return cl;
    } catch (const CLI::CallForAllHelp&) {
        cl.out = app.help("", CLI::AppFormatMode::All);
        return cl;
    } catch (const CLI::ParseError& e) {
        Chain c = parsed_chain(app, verbs);
        const bool extras = !app.remaining().empty() || (!c.apps.empty() && !c.apps.back()->remaining().empty());
        std::string what = e.what();
        if (extras) what = explain_extras(c, verbs, app.remaining());
        else if (!c.verbs.empty() && !c.verbs.back()->run) what = "needs one of: " + names_of(c.verbs.back()->subverbs);
        else if (c.verbs.empty()) what = "needs a verb: " + names_of(verbs);
        cl.err = verb_path(c) + ": error: " + what + "\nsee: " + verb_path(c) + " --help\n";
        cl.status = 2;
        return cl;
    }
    if (CLI::App* help = app.got_subcommand("help") ? app.get_subcommand("help") : nullptr) {
        CLI::App fresh{app.get_description(), kProgram};   // app.help() would describe `help` itself
        build_app(fresh, verbs);
        CLI::App* target = &fresh;
        std::string path = kProgram;
        for (const std::string& w : help->remaining()) {
            try {
                target = target->get_subcommand(w);
            } catch (const CLI::OptionNotFound&) {
                cl.err = std::string(kProgram) + " help: no verb '" + w + "'\n";
                cl.status = 2;
                return cl;
            }
            if (target->get_parent() != &fresh) path += " " + target->get_parent()->get_name();
        }
        cl.out = target == &fresh ? fresh.help() : target->help(path);
        return cl;
    }
    Chain c = parsed_chain(app, verbs);
    if (c.verbs.empty()) {   // cannot happen: a subcommand is required
        cl.err = app.help();
        cl.status = 2;
        return cl;
    }
    const Verb* v = c.verbs.back();
    CLI::App* a = c.apps.back();
    cl.verb = v;
    if (v->positional)
        for (const std::string& r : a->get_option(v->positional)->results()) cl.args.positional.push_back(r);
    if (v->positional2)
        for (const std::string& r : a->get_option(v->positional2)->results()) cl.args.positional.push_back(r);
    for (const Flag& f : v->flags) {
        const CLI::Option* o = a->get_option(std::string("--") + f.name);
        if (o->count() == 0) continue;
        // A value flag given twice with two values: one of them would be ignored (a switch twice is one).
        if (f.value != Value::Switch && !f.repeats && o->results().size() > 1 && o->results().front() != o->results().back()) {
            cl.err = verb_path(c) + ": error: --" + f.name + " is given twice ('" + o->results().front() + "' and '" + o->results().back() +
                     "'); give it once\n";
            cl.status = 2;
            cl.verb = nullptr;
            return cl;
        }
        std::string value = f.value == Value::Switch ? "" : o->results().back();
        if (f.repeats) {   // every occurrence's, one per line (--set's: each sets at least one key)
            value.clear();
            for (const std::string& r : o->results()) {
                if (r.find('=') == std::string::npos) {
                    // --set takes comma lists of keys; --const one NAME=VALUE an occurrence
                    const char* form = std::string(f.name) == "const" ? "NAME=VALUE" : "key=value[,key=value...]";
                    cl.err = verb_path(c) + ": error: --" + f.name + " " + wl::quote_prefix(r) + " sets nothing: give " + form + "\n";
                    cl.status = 2;
                    cl.verb = nullptr;
                    return cl;
                }
                value += (value.empty() ? "" : "\n") + r;
            }
        }
        cl.args.options[f.name] = value;
    }
    std::string path = verb_path(c).substr(std::string(kProgram).size() + 1);
    cl.args.verb = path;
    std::string broken = broken_rule(path.c_str(), cl.args);
    if (broken.empty()) broken = unread_key(path.c_str(), cl.args);
    if (broken.empty()) broken = flag_and_set_clash(path.c_str(), cl.args);
    if (!broken.empty()) {
        cl.err = verb_path(c) + ": error: " + broken + "\n";
        cl.status = 2;
        cl.verb = nullptr;
    }
    return cl;
}

// "name": --name given; "name=value": given with that value (absent, it has its default, which is not `value`).
static bool holds(const Args& args, const std::string& cond) {
    const std::string name = cond.substr(0, cond.find('='));
    return args.has(name) && (name.size() == cond.size() || args.get(name) == cond.substr(name.size() + 1));
}

std::string broken_rule(const char* verb_path, const Args& args) {
    for (const FlagRule& r : flag_rules()) {
        if (std::string(r.verb) != verb_path || !args.has(r.flag)) continue;
        const std::string other = r.other, name = other.substr(0, other.find('='));
        const bool valued = name.size() < other.size();   // "mode=infer": --mode with that value
        const bool there = holds(args, other);
        const std::string a = std::string("--") + r.flag, b = "--" + (valued ? name + " " + other.substr(name.size() + 1) : other);
        if (r.rule == Rule::Conflicts && there)
            return a + " and " + b + " cannot both apply: " + r.why + (r.detail ? r.detail(args) : "") + (valued ? "" : "; give one");
        if (r.rule == Rule::Needs && !there) return a + " needs " + b + ": " + r.why;
    }
    return "";
}

static std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    return w;
}

static bool covers(const std::string& pattern, const std::string& key) {   // "model.*" or the key itself
    if (pattern.size() > 2 && pattern.compare(pattern.size() - 2, 2, ".*") == 0) return key.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
    return pattern == key;
}

static std::string when_text(const std::string& when) {   // "on-mesh !checkpoint" -> " (with --on-mesh, without --checkpoint)"
    std::string t;
    for (const std::string& c : words(when)) {
        const bool neg = c[0] == '!';
        std::string flag = "--" + c.substr(neg);
        if (size_t eq = flag.find('='); eq != std::string::npos) flag[eq] = ' ';
        t += (t.empty() ? "" : ", ") + std::string(neg ? "without " : "with ") + flag;
    }
    return t.empty() ? "" : " (" + t + ")";
}

static std::string keys_text(const std::string& keys) {   // "a b" -> "a, b"
    std::string t;
    for (const std::string& k : words(keys)) t += (t.empty() ? "" : ", ") + k;
    return t;
}

// The config keys --set names, those a config has (a key no config has is left to the config's
// own error, which names the nearest).
static std::vector<std::string> set_keys(const Args& args) {
    const std::vector<std::string> known = wl::gpt::GPTConfig::keys();
    wl::gpt::Overrides sets;
    try {
        sets = wl::gpt::parse_overrides(args.get("set"));
    } catch (const std::exception&) {   // said by the verb, where the text is applied
    }
    std::vector<std::string> keys;
    for (const wl::gpt::Override& o : sets)
        if (std::find(known.begin(), known.end(), o.key) != known.end()) keys.push_back(o.key);
    return keys;
}

std::string flag_and_set_clash(const char* verb_path, const Args& args) {
    if (!args.has("set")) return "";
    const std::vector<std::string> keys = set_keys(args);
    for (const FlagKeys& r : flag_keys()) {
        if (std::string(r.verb) != verb_path || !args.has(r.flag)) continue;
        const std::string also = r.also ? std::string(r.also).substr(0, std::string(r.also).find('=')) : "";
        for (const std::string& k : {std::string(r.key), also})
            if (!k.empty() && std::find(keys.begin(), keys.end(), k) != keys.end())
                return std::string("--") + r.flag + " and --set " + k + " both set " + k + "; give one";
    }
    return "";
}

std::string unread_key(const char* verb_path, const Args& args) {
    if (!args.has("set")) return "";
    std::vector<const KeysRead*> rows;
    for (const KeysRead& r : keys_read())
        if (std::string(r.verb) == verb_path) rows.push_back(&r);
    if (rows.empty()) return "";
    for (const std::string& key : set_keys(args)) {
        bool read = false;
        for (const KeysRead* r : rows) {
            bool when = true;
            for (const std::string& c : words(r->when)) when = when && (c[0] == '!' ? !holds(args, c.substr(1)) : holds(args, c));
            for (const std::string& p : words(r->keys)) read = read || (when && covers(p, key));
        }
        if (read) continue;
        std::string reads;
        for (const KeysRead* r : rows) reads += (reads.empty() ? "" : "; ") + keys_text(r->keys) + when_text(r->when);
        return "--set " + key + ": " + verb_path + " does not read this key, so it would change nothing; it reads " + reads;
    }
    return "";
}

}  // namespace wlcli
