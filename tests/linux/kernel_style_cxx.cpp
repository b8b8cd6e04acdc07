// The kernel-style code compiled as C++.
#include "kernel_style.c"
