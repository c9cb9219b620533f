/*
** cli_dl_mhd.h - libmicrohttpd, opened at run time when `lraf serve`
** starts its HTTP front (cli_dl_mhd.c), so that no other command maps
** it, nor the libraries it pulls in.  The table holds the functions
** cli_serve_http.c calls, with the prototypes of <microhttpd.h>; call
** it only after cli_dl_mhd_load returned 1.
*/
#ifndef CLI_DL_MHD_H
#define CLI_DL_MHD_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

typedef struct cli_dl_mhd {
  struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                     MHD_AcceptPolicyCallback apc,
                                     void *apc_cls,
                                     MHD_AccessHandlerCallback dh,
                                     void *dh_cls, ...);
  void (*stop_daemon)(struct MHD_Daemon *daemon);
  const union MHD_DaemonInfo *(*get_daemon_info)(
      struct MHD_Daemon *daemon, enum MHD_DaemonInfoType info_type, ...);
  const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                         enum MHD_ValueKind kind,
                                         const char *key);
  int (*get_connection_values)(struct MHD_Connection *connection,
                               enum MHD_ValueKind kind,
                               MHD_KeyValueIterator iterator,
                               void *iterator_cls);
  struct MHD_Response *(*create_response_from_buffer)(
      size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
  enum MHD_Result (*add_response_header)(struct MHD_Response *response,
                                         const char *header,
                                         const char *content);
  enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
                                    unsigned int status_code,
                                    struct MHD_Response *response);
  void (*destroy_response)(struct MHD_Response *response);
} cli_dl_mhd;

extern cli_dl_mhd cli_mhd;
/* Open libmicrohttpd once; 1, or 0 with *why set to a message naming
   the library and dlerror's text (the same one on every later call). */
int cli_dl_mhd_load(const char **why);

#endif
