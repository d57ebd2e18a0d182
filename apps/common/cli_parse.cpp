// parse_command_line of apps/common/cli.hpp: CLI11 parses, and each of its
// errors is said again in the tools' own words ("<option> <value as typed>:
// <rule>"), as the tools' own checks say theirs, so that a user never meets
// two styles (nor CLI11's "At Most 1 required but received 2").
#include "cli.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (std::size_t k = 0; k < parts.size(); ++k) s += (k ? sep : "") + parts[k];
  return s;
}

/// "INT" -> "an integer": what a value of CLI11's type name must be (the name
/// without the validator's description CLI11 appends: "INT:INT in [1 - 8]").
std::string type_phrase(const std::string& type_name) {
  const std::string type = type_name.substr(0, type_name.find_first_of(": "));
  if (type == "INT") return "an integer";
  if (type == "UINT") return "a non-negative integer";
  if (type == "FLOAT") return "a number";
  if (type == "BOOLEAN") return "true or false";
  return "a value of type " + type;
}

const CLI::Option* find_option(const CLI::App& cli, const std::string& name) {
  for (const CLI::Option* o : cli.get_options())
    if (o->get_name() == name || o->check_name(name)) return o;
  return nullptr;
}

/// The text after "<name>: " in a CLI11 message about option `name`.
bool split_named(const std::string& what, std::string& name, std::string& rest) {
  const std::size_t colon = what.find(": ");
  if (colon == std::string::npos || colon == 0 || what[0] != '-') return false;
  name = what.substr(0, colon);
  rest = what.substr(colon + 2);
  return true;
}

std::string repeated_option(const CLI::App& cli) {
  for (const CLI::Option* o : cli.get_options()) {
    if (o->get_expected_max() != 1 || o->count() < 2) continue;
    std::vector<std::string> values;
    for (const auto& r : o->results()) values.push_back("'" + r + "'");
    return o->get_name() + " is given " + std::to_string(o->count()) + " times (" + join(values, ", ") +
           "); give it once";
  }
  return "";
}

std::string argument_mismatch(const CLI::App& cli, const std::string& what) {
  const std::string repeated = repeated_option(cli);
  if (!repeated.empty()) return repeated;
  // "--input: 1 required TEXT missing": the option ended the command line or
  // was followed by another option.
  std::string name, rest;
  const std::size_t required = what.find(" required ");
  if (split_named(what, name, rest) && required != std::string::npos && what.size() > 8 &&
      what.compare(what.size() - 8, 8, " missing") == 0) {
    const std::size_t from = required + 10;
    const std::string type = what.substr(from, what.size() - 8 - from);
    return name + " needs a value" + (type == "TEXT" ? std::string() : " (" + type_phrase(type) + ")");
  }
  return what;
}

std::string validation(const std::string& what) {
  std::string name, rest;
  if (!split_named(what, name, rest)) return what;
  // CLI::IsMember: "<value> not in {a,b,c}".
  const std::size_t in_set = rest.rfind(" not in {");
  if (in_set != std::string::npos && !rest.empty() && rest.back() == '}') {
    std::string set = rest.substr(in_set + 9, rest.size() - in_set - 10);
    std::string listed;
    for (const char c : set) listed += c == ',' ? std::string(", ") : std::string(1, c);
    return name + " " + rest.substr(0, in_set) + ": must be one of " + listed;
  }
  // CLI::Range: "Value <value> not in range <lo> to <hi>".
  const std::size_t in_range = rest.find(" not in range ");
  if (starts_with(rest, "Value ") && in_range != std::string::npos) {
    const std::string bounds = rest.substr(in_range + 14);
    const std::size_t to = bounds.find(" to ");
    // The bounds as CLI11 prints them: std::to_string, so "1.000000" for a double.
    const std::string kind = bounds.find('.') == std::string::npos ? "an integer" : "a number";
    if (to != std::string::npos)
      return name + " " + rest.substr(6, in_range - 6) + ": must be " + kind + " from " + bounds.substr(0, to) +
             " to " + bounds.substr(to + 4);
  }
  return name + ": " + rest;
}

std::string conversion(const CLI::App& cli, const std::string& what) {
  // "Could not convert: --repeat = x" (a value of the wrong type).
  const std::string head = "Could not convert: ";
  const std::size_t eq = what.find(" = ");
  if (starts_with(what, head) && eq != std::string::npos) {
    const std::string name = what.substr(head.size(), eq - head.size());
    const CLI::Option* o = find_option(cli, name);
    if (o != nullptr && o->get_expected_max() == 0)
      return name + "=" + what.substr(eq + 3) + ": " + name + " is a flag and takes no value";
    return name + " " + what.substr(eq + 3) + ": must be " + type_phrase(o ? o->get_type_name() : std::string("?"));
  }
  // "--json: Should be true/false or a number", "--json: too many inputs for a flag".
  std::string name, rest;
  if (split_named(what, name, rest)) {
    const CLI::Option* o = find_option(cli, name);
    if (o != nullptr && o->get_expected_max() == 0) return name + " is a flag and takes no value";
  }
  return what;
}

std::string extras(const CLI::App& cli) {
  const std::vector<std::string> left = cli.remaining();
  if (left.empty()) return "unexpected arguments";
  const std::string& first = left.front();
  if (starts_with(first, "-")) return "unknown option '" + first + "'";
  return "unexpected argument '" + first + "' (every value follows its option, as in --input FILE)";
}

/// A CLI11 parse error in the tools' words (CLI11's own text where it has no
/// better form: a message of a newer CLI11, say).
std::string usage_message(const CLI::App& cli, const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) return argument_mismatch(cli, what);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return extras(cli);
  if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) return validation(what);
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return conversion(cli, what);
  // "--input excludes --random" says it already; what to do is missing.
  if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) return what + "; give one of them";
  const std::size_t requires_at = what.find(" requires ");
  if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr && requires_at != std::string::npos)
    return what.substr(0, requires_at) + " needs " + what.substr(requires_at + 10);
  return what;
}

}  // namespace

std::optional<int> parse_command_line(CLI::App& cli, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes a reversed vector
  try {
    cli.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    throw UsageError(usage_message(cli, e));
  }
  return std::nullopt;
}

}  // namespace app
}  // namespace tdmaps
