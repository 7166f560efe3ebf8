// The device session's process handling (no GPU needed: the served function stands in for runKernel).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "runner/Launch.hpp"

using namespace ptxmm::runner;
using nlohmann::json;

TEST_CASE("a device session serves many requests from one child process", "[session]") {
  DeviceSession s([](const json& req) { return json{{"pid", getpid()}, {"n", req.at("n").get<int>() * 2}}; });
  std::string why;
  auto a = s.call(json{{"n", 1}}, 10000, why);
  auto b = s.call(json{{"n", 21}}, 10000, why);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->at("n") == 2);
  CHECK(b->at("n") == 42);
  CHECK(a->at("pid") == b->at("pid"));  // the same child served both
  CHECK(a->at("pid") != getpid());      // and it is not this process
  CHECK(s.started() == 1);
}

TEST_CASE("a quiet or dead session child is killed and the next call starts a new one", "[session]") {
  DeviceSession s([](const json& req) {
    const std::string what = req.at("do").get<std::string>();
    if (what == "hang") std::this_thread::sleep_for(std::chrono::seconds(30));
    if (what == "die") _exit(3);
    if (what == "throw") throw std::runtime_error("bad request");
    return json{{"pid", getpid()}};
  });
  std::string why;
  auto first = s.call(json{{"do", "ok"}}, 10000, why);
  REQUIRE(first);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(s.call(json{{"do", "hang"}}, 300, why));  // no reply within 300 ms of quiet
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(why.find("watchdog") != std::string::npos);
  auto second = s.call(json{{"do", "ok"}}, 10000, why);
  REQUIRE(second);
  CHECK(second->at("pid") != first->at("pid"));
  CHECK_FALSE(s.call(json{{"do", "die"}}, 10000, why));  // the child exits: EOF, not a hang
  auto third = s.call(json{{"do", "ok"}}, 10000, why);
  REQUIRE(third);
  CHECK(third->at("pid") != second->at("pid"));
  auto err = s.call(json{{"do", "throw"}}, 10000, why);  // an exception is a reply, the child lives on
  REQUIRE(err);
  CHECK(err->at("error") == "bad request");
  CHECK(s.call(json{{"do", "ok"}}, 10000, why)->at("pid") == third->at("pid"));
  CHECK(s.started() == 3);
}
