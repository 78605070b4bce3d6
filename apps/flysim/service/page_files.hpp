#pragma once
// The live page's static files: plain HTML, JavaScript and CSS kept in
// apps/flysim/web/, installed with the binary, found at run time and read once when the
// service starts, so that a request never touches the file system.
#include <string>
#include <vector>

namespace flysim::app {

struct PageFile {
  std::string name;          // "index.html": served at /index.html (and / for the index)
  std::string content_type;  // "text/html; charset=utf-8"
  std::string body;
};

struct PageFiles {
  std::string dir;              // where they were read from; empty: no page is served
  std::vector<PageFile> files;  // index.html first
};

// The files the page is made of, each required.
inline const std::vector<std::string> kPageFileNames = {"index.html", "page.js", "page.css"};

// Where the page is looked for when control.web-dir is not given, in this order: next to
// the binary (web/), the install layout beside it (../share/flysim/web), the source tree
// it was built from, the install prefix it was configured with.
std::vector<std::string> web_dir_candidates(const std::string& executable);

// The folder to read: `given` (control.web-dir) when set, else the first candidate that
// holds index.html. Throws input_error naming the places it looked and the option.
std::string find_web_dir(const std::string& given, const std::vector<std::string>& candidates);

// Reads every file of kPageFileNames from `dir`; throws input_error naming a file that
// is missing or unreadable.
PageFiles load_page_files(const std::string& dir);

// The path of the running program (/proc/self/exe), "" when it cannot be read.
std::string running_executable();

}  // namespace flysim::app
