/*
** cli_diff.c - lraf diff: compare two JSON profiles.
*/
#include "cli.h"

int cli_diff(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_error("lraf diff: not yet");
}
