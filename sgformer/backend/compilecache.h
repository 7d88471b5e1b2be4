// The C functions of compilecache.c, which compilecache.go calls.

#ifndef SGFORMER_COMPILECACHE_H_
#define SGFORMER_COMPILECACHE_H_

#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

// SG_MAX_PLUGINS bounds the PJRT plugins redirected at once (a process loads one or two).
#define SG_MAX_PLUGINS 4

int sg_patch(char** paths, char** err);
PJRT_Error* sg_compile(int slot, PJRT_Client_Compile_Args* args);
int sg_identity(int slot, PJRT_Client* client, char** out, char** err);
int sg_serialize(int slot, PJRT_LoadedExecutable* exe, char** out, size_t* n, char** err);
int sg_deserialize(int slot, PJRT_Client* client, const char* bytes, size_t n, PJRT_LoadedExecutable** out,
		   char** err);
int sg_memory(int slot, PJRT_LoadedExecutable* exe, int64_t stats[6], char** name, char** err);

#endif  // SGFORMER_COMPILECACHE_H_
