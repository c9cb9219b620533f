/*
** rw_vlean.h - the lean structural check of code rewritten in memory
** for the lraf VM (rw_vlean.c), for the verifier (rw_verify.c).
*/
#ifndef RW_VLEAN_H
#define RW_VLEAN_H

#include "rw.h"

/* Whether f's code is o's, Lua's parser's, but for what rewriting for
   the lraf VM may change, each change checked: then f is as sound as
   o's code, its debug information aside (vm_check_debug).  0 when it is
   not, or when some other change was made: then f needs the full check
   (vm_check_code). */
int rw_vlean_code(const vm_proto *f, const rw_original *o);

#endif
