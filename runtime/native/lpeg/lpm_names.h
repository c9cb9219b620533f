/*
** lpm_names.h - forced into every file of lraf's metered LPeg (the
** Makefile's -include): LPeg's external names get the prefix lpm_, so
** that liblraf.a linked into a program that also links LPeg does not
** define them twice.  The library exports none of them (hidden
** visibility).  The list is LPeg 1.0.2's and 1.1.0's (nm of their
** objects, built with NDEBUG as here: the print functions are macros
** then); a name that one release lacks is renamed for nothing.
*/
#define charinset	lpm_charinset
#define charsettype	lpm_charsettype
#define checkaux	lpm_checkaux
#define compile		lpm_compile
#define finddyncap	lpm_finddyncap
#define fixedlen	lpm_fixedlen
#define freecode	lpm_freecode
#define getbytefromcharset	lpm_getbytefromcharset
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
#define tree2cset	lpm_tree2cset
