// The live page's endpoints through a real ControlServer and control actor,
// in front of stand-ins for the sim loop and the activity window (control_support.hpp):
// the static files, GET /spikes, /rates and /top, and their 400s.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "apps/flysim/service/browser_guard.hpp"
#include "apps/flysim/service/page_files.hpp"
#include "control_support.hpp"

namespace flysim::test {
namespace {

using json = nlohmann::json;
using PageEndpoints = ControlFixture;

json ok_json(const httplib::Result& r) {
  EXPECT_TRUE(r) << httplib::to_string(r.error());
  if (!r) return {};
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  return json::parse(r->body);
}

void expect_400_naming(const httplib::Result& r, const std::string& message) {
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(json::parse(r->body).value("error", "").find(message), std::string::npos) << r->body;
}

app::ControlServerConfig with_page(const std::string& token = "") {
  app::ControlServerConfig config;
  config.page = app::load_page_files(FLYSIM_WEB_DIR);
  config.token = token;
  return config;
}

TEST_F(PageEndpoints, SpikesGivesRowsWithRootIdsAsStringsAndCountsPerBin) {
  start();
  const json r = ok_json(get("/spikes?since=151&neurons=2"));
  EXPECT_EQ(log_->questions, std::vector<std::string>{"raster 151 2"});
  EXPECT_EQ(r, json::parse(R"({"bin_ms":20.0,"first":40,"next":153,"window_bins":500,
    "rows":[{"id":"720575940660219265","index":17,"spikes":42,"rate_hz":4.2,"stimulated":true,"readout":true},
            {"id":"820475940600000023","index":3,"spikes":7,"rate_hz":0.7,"stimulated":false,"readout":false}],
    "bins":[{"pos":151,"t_ms":3020.0,"counts":[2,0]},{"pos":152,"t_ms":3040.0,"counts":[1,3]}]})"));
  EXPECT_NE(get("/spikes")->body.find("\"id\":\"720575940660219265\""), std::string::npos) << "an ID is a JSON string";
}

TEST_F(PageEndpoints, RatesAndTopAnswerWithTheWindowsFigures) {
  start();
  const json rates = ok_json(get("/rates?since=152"));
  EXPECT_EQ(rates, json::parse(R"({"bin_ms":20.0,"first":40,"next":153,"window_bins":500,"neurons":2000,
    "readout":{"id":"720575940660219265","index":17,"spikes":42,"rate_hz":4.2,"stimulated":true,"readout":true},
    "bins":[{"pos":152,"t_ms":3040.0,"spikes":1234,"active":321,"population_hz":30.85,"readout_hz":50.0}]})"));
  const json top = ok_json(get("/top?neurons=5"));
  EXPECT_EQ(top["window_ms"], 10000.0);
  ASSERT_EQ(top["top"].size(), 1u);
  EXPECT_EQ(top["top"][0]["id"], "720575940660219265");
  EXPECT_EQ(log_->questions, (std::vector<std::string>{"rates 152", "top 5"}));
}

TEST_F(PageEndpoints, LeftOutParametersHaveDefaults) {
  start();
  ok_json(get("/spikes"));
  ok_json(get("/rates"));
  ok_json(get("/top"));
  EXPECT_EQ(log_->questions, (std::vector<std::string>{"raster 0 64", "rates 0", "top 10"}));
}

TEST_F(PageEndpoints, BadQueryParametersAre400NamingTheParameterAndNeverReachTheWindow) {
  start();
  expect_400_naming(get("/spikes?since=abc"), "query parameter \"since\" must be an integer 0..9007199254740992, got \"abc\"");
  expect_400_naming(get("/spikes?since=-1"), "query parameter \"since\" must be an integer");
  expect_400_naming(get("/spikes?since="), "query parameter \"since\" must be an integer");
  expect_400_naming(get("/spikes?since=1.5"), "query parameter \"since\" must be an integer");
  expect_400_naming(get("/spikes?neurons=0"), "query parameter \"neurons\" must be an integer 1..1000, got \"0\"");
  expect_400_naming(get("/spikes?neurons=1001"), "query parameter \"neurons\" must be an integer 1..1000");
  expect_400_naming(get("/spikes?neurons=99999999999999999999"), "query parameter \"neurons\" must be an integer");
  expect_400_naming(get("/spikes?since=1&since=2"), "query parameter \"since\" is given twice");
  expect_400_naming(get("/spikes?from=3"), "unknown query parameter \"from\": GET /spikes takes since, neurons");
  expect_400_naming(get("/rates?neurons=3"), "unknown query parameter \"neurons\": GET /rates takes since");
  expect_400_naming(get("/top?since=3"), "unknown query parameter \"since\": GET /top takes neurons");
  expect_400_naming(get("/top?neurons=x"), "query parameter \"neurons\" must be an integer 1..1000, got \"x\"");
  std::lock_guard<std::mutex> lock(log_->mutex);
  EXPECT_TRUE(log_->questions.empty()) << "a refused question reached the window";
}

TEST_F(PageEndpoints, ThePageIsServedAtTheRootWithItsScriptAndStyle) {
  start(with_page());
  const auto index = get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(index->get_header_value("Cache-Control"), "no-cache");
  EXPECT_NE(index->body.find("<canvas id=\"raster\""), std::string::npos);
  EXPECT_NE(index->body.find("src=\"page.js\""), std::string::npos);
  EXPECT_EQ(get("/index.html")->body, index->body);
  EXPECT_EQ(get("/page.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(get("/page.css")->get_header_value("Content-Type"), "text/css; charset=utf-8");
  const auto head = [&] {
    httplib::Client client("127.0.0.1", server_->port());
    return client.Head("/page.js");
  }();
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_NE(get("/nothing.js")->body.find("GET /spikes, GET /rates, GET /top, GET /, GET /index.html, GET /page.js"),
            std::string::npos);
}

TEST_F(PageEndpoints, WithoutAPageTheRootIsUnknown) {
  start();
  const auto r = get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body.find("GET /page.js"), std::string::npos) << r->body;
}

TEST_F(PageEndpoints, ThePageNeedsNoTokenButItsFiguresDo) {
  start(with_page("s3cret-token-of-16"));
  EXPECT_EQ(get("/")->status, 200);
  EXPECT_EQ(get("/page.js")->status, 200);
  EXPECT_EQ(get("/spikes")->status, 401);
  EXPECT_EQ(get("/top")->status, 401);
  EXPECT_EQ(get("/rates", {{"Authorization", "Bearer s3cret-token-of-16"}})->status, 200);
  EXPECT_EQ(log_->questions, std::vector<std::string>{"rates 0"});
}

TEST_F(PageEndpoints, PageEndpointsTakeOnlyGet) {
  start(with_page());
  EXPECT_EQ(post("/spikes", "{}")->status, 405);
  EXPECT_EQ(post("/", "{}")->status, 405);
}

TEST(BrowserGuard, RefusesAnotherOriginAndAForeignHostOnALoopbackServiceWithoutToken) {
  EXPECT_EQ(app::cross_site_problem("127.0.0.1:7460", "", true), "") << "curl, flysim ctl: no Origin";
  EXPECT_EQ(app::cross_site_problem("localhost:8080", "http://localhost:8080", true), "") << "the page through a tunnel";
  EXPECT_EQ(app::cross_site_problem("[::1]:7460", "http://[::1]:7460", true), "");
  EXPECT_EQ(app::cross_site_problem("", "", true), "") << "an HTTP/1.0 client without Host";
  EXPECT_NE(app::cross_site_problem("127.0.0.1:7460", "http://evil.example", true).find("a page of http://evil.example may not"),
            std::string::npos);
  EXPECT_NE(app::cross_site_problem("127.0.0.1:7460", "null", false), "") << "a sandboxed page";
  EXPECT_NE(app::cross_site_problem("evil.example:7460", "http://evil.example:7460", true).find("Host 'evil.example:7460' is not a loopback name"),
            std::string::npos)
      << "DNS rebinding: same origin, foreign name";
  EXPECT_EQ(app::cross_site_problem("flyhost:7460", "http://flyhost:7460", false), "") << "a service with a token may have any name";
}

TEST_F(PageEndpoints, ARequestForAnotherSiteIs403AndNeverReachesTheSimulation) {
  start(with_page());
  const auto cross = post("/stop", "{}", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403);
  EXPECT_NE(cross->body.find("a page of http://evil.example may not use this service"), std::string::npos) << cross->body;
  EXPECT_EQ(get("/", {{"Host", "evil.example"}})->status, 403);
  EXPECT_TRUE(log_->received().empty());
  const std::string self = "http://127.0.0.1:" + std::to_string(server_->port());
  EXPECT_EQ(post("/pause", "", {{"Origin", self}})->status, 200) << "the page itself";
}

}  // namespace
}  // namespace flysim::test
