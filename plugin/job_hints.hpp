#pragma once

#include "plugin/follow/failure_class.hpp"

#include <string>

namespace kpt::plugin {

struct Context;
struct JobKind;

/// A word as a POSIX shell reads it back: unchanged when it is plain, else in single quotes.
std::string shell_word(const std::string& word);

/// " NAME VALUE" with the value quoted for the shell; "" when the value is empty.
std::string flag_words(const std::string& name, const std::string& value);

/// How `logs`, `status` and `diagnose` name the job: NAME for a PyTorchJob, trainjob/NAME for a
/// TrainJob (a PyTorchJob of the same name would otherwise be ambiguous).
std::string job_word(const JobKind& kind, const std::string& name);

/// Hints that work when pasted: they reach the same cluster (the --kubeconfig and --context this
/// command was given; for a --local job the embedded cluster) and name the namespace. Credentials
/// are never repeated. `args` follows the program name: "logs mnist -f".
std::string plugin_hint(const Context& ctx, bool local, const std::string& args, const std::string& ns);
std::string kubectl_hint(const Context& ctx, bool local, const std::string& args, const std::string& ns);

/// The same, for the next steps a diagnosis prints.
StepContext step_context(const Context& ctx, bool local, const JobKind& kind, const std::string& name,
                         const std::string& ns);

}  // namespace kpt::plugin
