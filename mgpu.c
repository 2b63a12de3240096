/* The implementation of mgpu.h as its own translation unit. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
