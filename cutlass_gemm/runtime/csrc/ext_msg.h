// Error messages of the extension's nvcc-compiled files, with numbers formatted by std::to_string.
// TORCH_CHECK formats its arguments through c10::str (an std::ostringstream); in a .cu file of this
// extension, formatting an integer that way killed the process: SIGSEGV inside
// std::basic_ostream<char>::_M_insert<long>, instantiated in the extension itself (nvcc's host pass does
// not honour libstdc++'s extern template declarations), while messages of literals raised cleanly
// (tools/results/h100-2026-11-23/session8/call1/wo_refuse_gdb.log). A single const char* argument reaches
// c10::Error without any stream: write TORCH_CHECK(cond, cg::msg("text ", n, " more").c_str()).
#pragma once
#include <string>
#include <type_traits>

namespace cg {

inline void msg_append(std::string& s, const char* v) { s += v; }
inline void msg_append(std::string& s, std::string const& v) { s += v; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
void msg_append(std::string& s, T v) {
  s += std::to_string(v);
}

template <typename... Args>
std::string msg(Args const&... args) {
  std::string s;
  (msg_append(s, args), ...);
  return s;
}

}  // namespace cg
