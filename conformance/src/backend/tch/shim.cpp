// What the tch backend needs from libtorch that tch does not expose:
//  - bool and complex Scalars (tch makes only int and double ones), and a number as Python's argument
//    parser passes it for a Tensor parameter: a 0-d "wrapped number" tensor;
//  - where a tensor sits in its storage (storage data pointer and offset), to tell which
//    input storage a result views, as `untyped_storage().data_ptr()` does in Python;
//  - the C++ class of the exception behind an error. tch keeps only `what()`, so this file
//    interposes `__cxa_throw`: every throw records which Python class torch's bindings would
//    raise for it (the order of CATCH_CORE_ERRORS in torch/csrc/Exceptions.h);
//  - quiet: no warnings on stderr, no stack frames collected for errors;
//  - `clone()` and `torch.autograd.grad(outputs, inputs, grad_outputs, allow_unused=True)`
//    for the cases with gradients (tch's `run_backward` takes no upstream gradients);
//  - `add`/`sub`/`rsub` with `alpha=`, `addcmul`/`addcdiv` with `value=` and `clamp` with
//    one number bound (tch's generated wrappers drop or require these), and the Scalar Python
//    makes of a 0-d tensor.

#include <ATen/Functions.h>
#include <ATen/ScalarOps.h>
#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <c10/util/Logging.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/headeronly/version.h>

#include <atomic>
#include <cstdint>
#include <dlfcn.h>
#include <typeinfo>

namespace {

thread_local const char* thread_last_class = nullptr;
std::atomic<const char*> any_last_class{nullptr};

// Whether a `catch (const E&)` would catch an object of type `thrown`.
template <class E>
bool caught_as(const std::type_info* thrown, void* object) {
  void* adjusted = object;
  return typeid(E).__do_catch(thrown, &adjusted, 1);
}

const char* python_class(const std::type_info* thrown, void* object) {
  if (thrown == nullptr) return nullptr;
  if (caught_as<c10::IndexError>(thrown, object)) return "IndexError";
  if (caught_as<c10::ValueError>(thrown, object)) return "ValueError";
  if (caught_as<c10::TypeError>(thrown, object)) return "TypeError";
  if (caught_as<c10::NotImplementedError>(thrown, object)) return "NotImplementedError";
  if (caught_as<c10::BufferError>(thrown, object)) return "BufferError";
  if (caught_as<c10::SyntaxError>(thrown, object)) return "SyntaxError";
  // LinAlgError, OutOfMemoryError, the distributed errors and AcceleratorError are
  // subclasses of RuntimeError in Python; every other c10::Error and std::exception is one.
  if (caught_as<std::exception>(thrown, object)) return "RuntimeError";
  return nullptr;
}

// The C++ runtime's signature (GCC declares `tinfo` as `void*`).
using CxaThrow = void (*)(void*, void*, void (*)(void*));

class SilentWarnings : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

}  // namespace

extern "C" {

// Interposes the C++ runtime's `__cxa_throw` (the executable exports it, so libtorch's
// throws resolve here), records the class, and forwards to the real one.
[[noreturn]] void __cxa_throw(void* object, void* tinfo, void (*dest)(void*)) {
  const char* cls = python_class(static_cast<const std::type_info*>(tinfo), object);
  thread_last_class = cls;
  any_last_class.store(cls, std::memory_order_relaxed);
  static CxaThrow real = reinterpret_cast<CxaThrow>(dlsym(RTLD_NEXT, "__cxa_throw"));
  if (real == nullptr) std::abort();
  real(object, tinfo, dest);
  __builtin_unreachable();
}

// Forgets the last thrown class (call before an op).
void bcast_tch_reset_exception_class() {
  thread_last_class = nullptr;
  any_last_class.store(nullptr, std::memory_order_relaxed);
}

// The Python class of the last exception thrown (on this thread, else on any thread, for
// errors raised in intra-op worker threads and rethrown here), or null.
const char* bcast_tch_last_exception_class() {
  if (thread_last_class != nullptr) return thread_last_class;
  return any_last_class.load(std::memory_order_relaxed);
}

// Whether throws from libtorch reach the interposer above (the link exported it).
int bcast_tch_throw_hook_active() {
  void* found = dlsym(RTLD_DEFAULT, "__cxa_throw");
  return found == reinterpret_cast<void*>(&__cxa_throw) ? 1 : 0;
}

// The data pointer of a tensor's storage (null when it has none or it is empty).
const void* bcast_tch_storage_data(const at::Tensor* t) {
  if (!t->has_storage()) return nullptr;
  return t->storage().data();
}

// A tensor's offset into its storage, in elements.
int64_t bcast_tch_storage_offset(const at::Tensor* t) { return t->storage_offset(); }

// A Scalar holding a bool, owned by the caller (free it with torch-sys's ats_free).
at::Scalar* bcast_tch_bool_scalar(int value) { return new at::Scalar(value != 0); }

// A Scalar holding a complex<double> (a Python complex), owned by the caller.
at::Scalar* bcast_tch_complex_scalar(double re, double im) {
  return new at::Scalar(c10::complex<double>(re, im));
}

// `scalar` as the 0-d wrapped-number tensor Python makes of a number passed for a Tensor
// parameter, owned by the caller (a tch tensor); null if that fails.
at::Tensor* bcast_tch_wrapped_number(const at::Scalar* scalar) {
  try {
    return new at::Tensor(at::native::wrapped_scalar_tensor(*scalar));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// libtch's error slot (torch-sys's libtch/torch_api.cpp), read by torch_sys::get_and_reset_last_err.
extern thread_local char* torch_last_err;

// `add`/`sub`/`rsub` (`op` 0, 1, 2) with alpha, as Python's `torch.add(x, y, alpha=a)` calls
// them: form 0 `at::add`, 1 in place on `self` (`x.add_(y, alpha=a)`), 2 into `out` (`rsub`
// has form 0 only). Writes the result handle (owned by the caller) to `result[0]`, or sets
// libtch's error slot to what libtorch raised, as libtch's own wrappers do.
void bcast_tch_add_alpha(at::Tensor** result, at::Tensor* self, at::Tensor* other,
                         const at::Scalar* alpha, int op, int form, at::Tensor* out) {
  try {
    at::Tensor r;
    if (op == 2) {
      r = at::rsub(*self, *other, *alpha);
    } else if (form == 1) {
      r = op == 1 ? self->sub_(*other, *alpha) : self->add_(*other, *alpha);
    } else if (form == 2) {
      r = op == 1 ? at::sub_out(*out, *self, *other, *alpha)
                  : at::add_out(*out, *self, *other, *alpha);
    } else {
      r = op == 1 ? at::sub(*self, *other, *alpha) : at::add(*self, *other, *alpha);
    }
    result[0] = new at::Tensor(r);
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
  }
}

// `clamp` with Python's optional number bounds (null for None), as `torch.clamp(x, min=a,
// max=b)` calls it: form 0 `at::clamp`, 1 in place, 2 into `out`. Result and errors as for
// `bcast_tch_add_alpha`.
void bcast_tch_clamp(at::Tensor** result, at::Tensor* self, const at::Scalar* min,
                     const at::Scalar* max, int form, at::Tensor* out) {
  try {
    std::optional<at::Scalar> lo = min ? std::optional<at::Scalar>(*min) : std::nullopt;
    std::optional<at::Scalar> hi = max ? std::optional<at::Scalar>(*max) : std::nullopt;
    at::Tensor r;
    if (form == 1) {
      r = self->clamp_(lo, hi);
    } else if (form == 2) {
      r = at::clamp_out(*out, *self, lo, hi);
    } else {
      r = at::clamp(*self, lo, hi);
    }
    result[0] = new at::Tensor(r);
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
  }
}

// `addcmul` (`div` 0) or `addcdiv` (`div` 1) with `value=` (tch's wrappers drop it): form 0
// `at::addcmul`, 1 in place, 2 into `out`. Result and errors as for `bcast_tch_add_alpha`.
void bcast_tch_addc(at::Tensor** result, int div, at::Tensor* self, at::Tensor* t1,
                    at::Tensor* t2, const at::Scalar* value, int form, at::Tensor* out) {
  try {
    at::Tensor r;
    if (form == 1) {
      r = div ? self->addcdiv_(*t1, *t2, *value) : self->addcmul_(*t1, *t2, *value);
    } else if (form == 2) {
      r = div ? at::addcdiv_out(*out, *self, *t1, *t2, *value)
              : at::addcmul_out(*out, *self, *t1, *t2, *value);
    } else {
      r = div ? at::addcdiv(*self, *t1, *t2, *value) : at::addcmul(*self, *t1, *t2, *value);
    }
    result[0] = new at::Tensor(r);
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
  }
}

// `self.clone()`, as Python calls it (the memory format preserved), into `result[0]`; errors as
// for `bcast_tch_add_alpha`.
void bcast_tch_clone(at::Tensor** result, const at::Tensor* self) {
  try {
    result[0] = new at::Tensor(self->clone());
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
  }
}

// `torch.autograd.grad(outputs, inputs, grad_outputs, allow_unused=True)`: writes a new handle
// for the gradient of each of the `n_inputs` inputs to `grads[i]`, or null where it is
// undefined (an input the outputs do not depend on); or sets libtch's error slot.
void bcast_tch_autograd_grad(at::Tensor** outputs, at::Tensor** grad_outputs, int n_outputs,
                             at::Tensor** inputs, int n_inputs, at::Tensor** grads) {
  try {
    std::vector<at::Tensor> outs, upstream, leaves;
    for (int i = 0; i < n_outputs; ++i) {
      outs.push_back(*outputs[i]);
      upstream.push_back(*grad_outputs[i]);
    }
    for (int i = 0; i < n_inputs; ++i) leaves.push_back(*inputs[i]);
    auto got = torch::autograd::grad(outs, leaves, upstream, /*retain_graph=*/std::nullopt,
                                     /*create_graph=*/false, /*allow_unused=*/true);
    for (int i = 0; i < n_inputs; ++i) {
      grads[i] = got[i].defined() ? new at::Tensor(got[i]) : nullptr;
    }
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
  }
}

// The Scalar Python's argument parser makes of a 0-d tensor passed for a Scalar parameter
// (`t.item()`), owned by the caller (free it with torch-sys's ats_free); null, with libtch's
// error slot set, if that fails.
at::Scalar* bcast_tch_item_scalar(const at::Tensor* t) {
  try {
    return new at::Scalar(t->item());
  } catch (const std::exception& e) {
    torch_last_err = strdup(e.what());
    return nullptr;
  }
}

// The libtorch version these headers (and so the linked libraries) belong to: "2.13.0".
const char* bcast_tch_torch_version() {
#define BCAST_STR2(x) #x
#define BCAST_STR(x) BCAST_STR2(x)
  return BCAST_STR(TORCH_VERSION_MAJOR) "." BCAST_STR(TORCH_VERSION_MINOR) "." BCAST_STR(
      TORCH_VERSION_PATCH);
}

// Installs a warning handler that drops every warning (on this thread), and stops c10
// errors from collecting stack frames (for every thread): tch reads each error's full text,
// and symbolising its backtrace costs far more than the op. The text still reads
// "<message>\nException raised from <function> at <file>:<line> ...".
void bcast_tch_quiet() {
  static SilentWarnings handler;
  c10::WarningUtils::set_warning_handler(&handler);
  static const bool fetcher_set = [] {
    c10::SetStackTraceFetcher([]() -> std::string { return std::string(); });
    return true;
  }();
  (void)fetcher_set;
}

}  // extern "C"
