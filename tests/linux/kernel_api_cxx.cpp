// The kernel-API test driver compiled as C++.
#include "kernel_api.c"
