/*
** lpm_names.h - forced into every file of lraf's metered LPeg (the
** Makefile's -include): LPeg's external names get the prefix lpm_, so
** that liblraf.a linked into a program that also links LPeg does not
** define them twice.  The library exports none of them (hidden
** visibility).  The list is LPeg 1.0.2's (nm of its objects, built
** with NDEBUG as here: its print functions are macros then).
*/
#define checkaux	lpm_checkaux
#define compile		lpm_compile
#define finddyncap	lpm_finddyncap
#define fixedlen	lpm_fixedlen
#define getcaptures	lpm_getcaptures
#define hascaptures	lpm_hascaptures
#define lp_gc		lpm_lp_gc
#define luaopen_lpeg	lpm_luaopen_lpeg
#define match		lpm_match
#define numsiblings	lpm_numsiblings
#define realloccode	lpm_realloccode
#define runtimecap	lpm_runtimecap
#define sizei		lpm_sizei
#define tocharset	lpm_tocharset
