// include/ptc/upstreams.hpp: the upstreams of protocol/upstream behind the
// installed API (libptc), for hosts that do not build the source tree.
#include "include/ptc/upstreams.hpp"

#include "protocol/upstream/upstreams.hpp"

namespace ptc {

class UpstreamServers {
 public:
  explicit UpstreamServers(std::shared_ptr<upstream::Upstreams> u) : upstreams(std::move(u)) {}
  std::shared_ptr<const upstream::Upstreams> upstreams;
};

namespace {

UpstreamStart start_parsed(std::string error, upstream::UpstreamsConfig config, bool required,
                           std::function<void(std::string_view)> log) {
  UpstreamStart out;
  if (!error.empty()) {
    out.errors.push_back(std::move(error));
    return out;
  }
  upstream::LogFn log_fn = log ? upstream::LogFn(std::move(log)) : [](std::string_view) {};
  auto ups = upstream::Upstreams::start(std::move(config), required, log_fn, &out.errors);
  if (ups) out.servers = std::make_shared<const UpstreamServers>(std::move(ups));
  return out;
}

}  // namespace

UpstreamStart start_upstreams(const std::string& path, bool required,
                              std::function<void(std::string_view line)> log) {
  upstream::UpstreamsConfig config;
  std::string error = upstream::load_upstreams(path, config);
  return start_parsed(std::move(error), std::move(config), required, std::move(log));
}

UpstreamStart start_upstreams_from_json(std::string_view json, bool required,
                                        std::function<void(std::string_view line)> log) {
  upstream::UpstreamsConfig config;
  std::string error = upstream::parse_upstreams(json, "upstreams", config);
  return start_parsed(std::move(error), std::move(config), required, std::move(log));
}

void attach_upstreams(RunOptions& options, const std::shared_ptr<const UpstreamServers>& servers,
                      uint32_t max_calls_per_program) {
  if (!servers) return;
  upstream::UpstreamLimits limits;
  limits.max_calls_per_program = max_calls_per_program;
  upstream::attach(options, servers->upstreams, limits);
}

}  // namespace ptc
