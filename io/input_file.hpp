#pragma once
// Opening a file the user named as an input. Only regular files are read: a FIFO
// would block the open forever, a directory or a device would read as nonsense.
// The check is made on the open descriptor (O_NONBLOCK, then fstat), so a FIFO never
// blocks and nothing can be swapped in between the check and the read.
#include <cstdio>
#include <string>
#include <string_view>

namespace flysim {

// Opens `path` for reading, or throws input_error naming the path and what it is
// ("is a directory", "is a FIFO", ...). `what` says what the file was for, e.g.
// "the checkpoint"; it appears in the message.
std::FILE* open_input_file(const std::string& path, std::string_view what = "the file");

// The whole file, through open_input_file.
std::string read_input_file(const std::string& path, std::string_view what = "the file");

// The kind of a non-regular file for messages ("a directory", "a FIFO", "a character
// device", ...), or "" for a regular file or a path that does not exist.
std::string special_file_kind(const std::string& path);

// Removes a UTF-8 byte-order mark from the start of `text` (editors on Windows add one;
// it would otherwise become part of the first header name).
std::string_view strip_utf8_bom(std::string_view text);

// The most bytes of an input an error message quotes: a line of megabytes is named by
// its place and its start, never echoed whole.
inline constexpr std::size_t kMaxQuotedBytes = 200;

// `text` for an error message: its first kMaxQuotedBytes bytes (then "... (N bytes)"),
// every byte that is not printable ASCII written as \xNN, so that a NUL or a control
// character in a bad input cannot cut or garble the message.
std::string printable(std::string_view text);

}  // namespace flysim
