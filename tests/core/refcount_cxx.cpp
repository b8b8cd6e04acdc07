// Reference-count semantics compiled as C++.
#include "refcount.c"
