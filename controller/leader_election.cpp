#include "controller/leader_election.hpp"

#include "controller/logger.hpp"
#include "util/json_access.hpp"
#include "util/stop_token.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace kpt::controller {

namespace {

std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
  const auto day = std::chrono::floor<std::chrono::days>(secs);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{secs - day};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ld.%06ldZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()), static_cast<long>(us));
  return buf;
}

}  // namespace

std::string check_lease_config(const LeaseConfig& c) {
  if (c.lease_duration <= c.renew_deadline) return "lease duration must be greater than renew deadline";
  if (c.renew_deadline.count() * 10 <= c.retry_period.count() * 12) {
    return "renew deadline must be greater than 1.2 x retry period";
  }
  if (c.retry_period.count() < 1) return "retry period must be at least 1s";
  return {};
}

bool LeaderElector::try_acquire_or_renew() {
  const auto now = micro_time(m_clock.now());
  const auto leases = kube::resources::leases();
  auto got = m_client.get(leases, m_config.namespace_, m_config.name);
  const auto refused = [this](const Error& e) {
    if (e.code == ErrorCode::api && (e.http_status == 401 || e.http_status == 403)) m_last_error = e.message;
    return false;
  };
  if (!got) {
    if (!kube::is_not_found(got.error())) return refused(got.error());
    const nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                                  {"kind", "Lease"},
                                  {"metadata", {{"name", m_config.name}, {"namespace", m_config.namespace_}}},
                                  {"spec",
                                   {{"holderIdentity", m_config.identity},
                                    {"leaseDurationSeconds", m_config.lease_duration.count()},
                                    {"acquireTime", now},
                                    {"renewTime", now},
                                    {"leaseTransitions", 0}}}};
    auto created = m_client.create(leases, m_config.namespace_, lease);
    return created ? true : refused(created.error());
  }
  auto lease = std::move(got).value();
  auto& spec = lease["spec"];
  if (!spec.is_object()) spec = nlohmann::json::object();
  const auto holder = spec.value("holderIdentity", std::string{});
  const auto renew = spec.value("renewTime", std::string{});
  if (holder != m_observed_holder || renew != m_observed_renew ||
      m_observed_at == std::chrono::steady_clock::time_point{}) {
    m_observed_holder = holder;
    m_observed_renew = renew;
    m_observed_at = m_clock.steady_now();
  }
  const auto duration =
      std::chrono::seconds{spec.value("leaseDurationSeconds", m_config.lease_duration.count())};
  if (!holder.empty() && holder != m_config.identity && m_clock.steady_now() < m_observed_at + duration) {
    return false;  // somebody else holds a lease we saw renewed recently
  }
  if (holder != m_config.identity) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  spec["holderIdentity"] = m_config.identity;
  spec["leaseDurationSeconds"] = m_config.lease_duration.count();
  spec["renewTime"] = now;
  auto updated = m_client.update(leases, m_config.namespace_, lease);
  if (!updated) return refused(updated.error());
  m_observed_holder = m_config.identity;
  m_observed_renew = now;
  m_observed_at = m_clock.steady_now();
  return true;
}

void LeaderElector::release() {
  const auto leases = kube::resources::leases();
  auto got = m_client.get(leases, m_config.namespace_, m_config.name);
  if (!got || util::string_at(util::member(*got, "spec"), "holderIdentity") != m_config.identity) return;
  auto lease = std::move(got).value();
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  (void)m_client.update(leases, m_config.namespace_, lease);
}

bool LeaderElector::acquire(const std::atomic<bool>& stop, Logger& log) {
  log.info("waiting for leadership",
           {{"lease", m_config.namespace_ + "/" + m_config.name}, {"identity", m_config.identity}});
  std::string said_holder;
  std::string said_error;
  while (!stop.load()) {
    if (try_acquire_or_renew()) {
      log.info("became leader", {{"identity", m_config.identity}});
      return true;
    }
    if (!m_last_error.empty() && m_last_error != said_error) {
      said_error = m_last_error;
      log.error(
          "cannot take the lease " + m_config.namespace_ + "/" + m_config.name + " (" + m_last_error +
          "): grant get, create and update on leases.coordination.k8s.io there, or pass --lease-namespace "
          "with a namespace where this user may");
    } else if (!m_observed_holder.empty() && m_observed_holder != said_holder) {
      said_holder = m_observed_holder;
      log.info("standing by: the lease is held", {{"holder", said_holder}});
    }
    m_last_error.clear();
    util::sleep_unless_stopped(stop, m_config.retry_period);
  }
  return false;
}

bool LeaderElector::keep(const std::atomic<bool>& stop, Logger& log) {
  auto last_renew = m_clock.steady_now();
  while (util::sleep_unless_stopped(stop, m_config.retry_period)) {
    if (try_acquire_or_renew()) {
      last_renew = m_clock.steady_now();
      continue;
    }
    if (m_clock.steady_now() - last_renew >= m_config.renew_deadline) {
      log.error("leadership lost", {{"identity", m_config.identity}});
      return false;
    }
  }
  return true;
}

}  // namespace kpt::controller
