// Errors the runtime raises, kept apart from the compiler's (user diagnostics, InternalError).
//
// - NoDriverError: there is no CUDA driver on this machine (or GPUJIT_CUDA_DRIVER names a file that will not
//   load). Compiling still works; only running needs a driver.
// - DriverError: a driver call returned an error; the message names the function, the CUDA error's name and
//   its text, e.g. "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)", then what gpujit was doing
//   ("; allocating 4096 bytes on NVIDIA H100", "; launching kernel 'k' with ...") and, for an error CUDA
//   does not recover from (a sticky error such as CUDA_ERROR_ILLEGAL_ADDRESS, a lost device), that the
//   process must restart to use the GPU again (recoverable() is false).
// - LaunchError: a launch the runtime refuses before calling the driver (a zero or oversized grid or block,
//   too much shared memory) or an argument it cannot pass. The message names the kernel and the limit.
// - KernelIndexError: a kernel compiled with debug=True indexed an array out of bounds; the message names
//   the index, axis and extent, the kernel and source line, and the thread and block. The CPU backend raises
//   it after the launch (the GPU traps instead, which fails the launch with a DriverError).
// The Python binding maps them to gpujit.CudaSupportError, gpujit.CudaAPIError, ValueError and IndexError.
#pragma once

#include <stdexcept>
#include <string>

namespace gpujit::rt {

class NoDriverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA call in a process forked after the CUDA driver was initialized in its parent: the child inherits
/// the parent's driver state but cannot use it (numba's CudaDriverError, "CUDA initialized before forking").
class ForkedProcessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DriverError : public std::runtime_error {
 public:
  /// `context` says what gpujit was doing ("allocating 4096 bytes on ..."); may be empty.
  DriverError(std::string function, int code, std::string name, std::string text, std::string context = {});

  const std::string& function() const { return function_; }
  int code() const { return code_; }
  /// The CUDA error's name, "CUDA_ERROR_OUT_OF_MEMORY".
  const std::string& error_name() const { return name_; }
  /// The driver's text for the error, "out of memory".
  const std::string& text() const { return text_; }
  const std::string& context() const { return context_; }
  /// False when CUDA refuses all later work in this process: a sticky error or a lost device
  /// (CUDA_ERROR_NO_DEVICE, CUDA_ERROR_DEINITIALIZED); CUDA_ERROR_DEVICE_UNAVAILABLE may pass.
  bool recoverable() const { return recoverable(code_); }
  static bool recoverable(int code);
  /// Whether `code` is an error raised inside a kernel that leaves the context unusable (sticky).
  static bool sticky(int code);
  /// The same error with `more` appended to its context.
  DriverError with_context(const std::string& more) const;

 private:
  std::string function_;
  int code_;
  std::string name_;
  std::string text_;
  std::string context_;
};

class LaunchError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class KernelIndexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A kernel ran a `raise`: what() is the raise's description (ir/sema_raise.cpp), a newline and the thread's
/// place ("tid=[0, 0, 0] ctaid=[1, 0, 0]"). The Python binding raises the exception it describes.
class KernelRaise : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpujit::rt
