/* A project header that includes mgpu.h. Deliberately without an include guard of its own,
   so including it twice includes mgpu.h twice (tests mgpu.h's own guards). */
#include "mgpu.h"

int user_device_count(void);
