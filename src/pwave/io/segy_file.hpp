#pragma once
// An open segyio file that closes itself (SEG-Y models, gathers written and read).

#include <segyio/segy.h>

#include <memory>

namespace pwave::io {

struct SegyCloser {
  void operator()(segy_file* f) const {
    if (f) segy_close(f);
  }
};

}  // namespace pwave::io
