// The C half of compilecache.go: finding the loaded PJRT plugins, redirecting their
// PJRT_Client_Compile to Go, and the PJRT calls the cache makes (PJRT C API, pjrt_c_api.h).

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compilecache.h"
#include "_cgo_export.h"

// The plugins whose compilation is redirected, by slot: each has its own hook, so that a hook
// knows which plugin's API to call.
static const PJRT_Api* sg_apis[SG_MAX_PLUGINS];
static PJRT_Client_Compile* sg_compiles[SG_MAX_PLUGINS];
static int sg_napis;

#define SG_HOOK(i) \
	static PJRT_Error* sg_hook##i(PJRT_Client_Compile_Args* args) { return sgformerCompile(i, args); }
SG_HOOK(0)
SG_HOOK(1)
SG_HOOK(2)
SG_HOOK(3)
static PJRT_Client_Compile* sg_hooks[SG_MAX_PLUGINS] = {sg_hook0, sg_hook1, sg_hook2, sg_hook3};

// sg_find_api appends to found the PJRT APIs of the loaded shared objects that export
// GetPjrtApi (dl_iterate_phdr's callback).
typedef struct {
	const PJRT_Api* apis[SG_MAX_PLUGINS];
	char* paths[SG_MAX_PLUGINS];
	int n;
} sg_found;

static int sg_find_api(struct dl_phdr_info* info, size_t size, void* data) {
	sg_found* found = data;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == 0 || found->n == SG_MAX_PLUGINS) {
		return 0;
	}
	void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (handle == NULL) {
		return 0;
	}
	const PJRT_Api* (*get)(void) = (const PJRT_Api* (*)(void))dlsym(handle, "GetPjrtApi");
	if (get != NULL) {
		found->apis[found->n] = get();
		found->paths[found->n] = strdup(info->dlpi_name);
		found->n++;
	}
	dlclose(handle);
	return 0;
}

// sg_patch redirects the compilation of every loaded PJRT plugin not redirected yet. It returns
// the number of plugins newly redirected, their paths in paths (freed by the caller), or -1
// with a message in err when the API table could not be written.
int sg_patch(char** paths, char** err) {
	sg_found found = {0};
	dl_iterate_phdr(sg_find_api, &found);
	int added = 0;
	for (int i = 0; i < found.n; i++) {
		const PJRT_Api* api = found.apis[i];
		int known = 0;
		for (int j = 0; j < sg_napis; j++) {
			known |= sg_apis[j] == api;
		}
		if (known || api == NULL || api->struct_size < offsetof(PJRT_Api, PJRT_Executable_DeserializeAndLoad) +
						      sizeof(api->PJRT_Executable_DeserializeAndLoad) ||
		    api->PJRT_Executable_Serialize == NULL || api->PJRT_Executable_DeserializeAndLoad == NULL) {
			free(found.paths[i]);
			continue;
		}
		if (sg_napis == SG_MAX_PLUGINS) {
			*err = strdup("more PJRT plugins loaded than the compile cache handles");
			free(found.paths[i]);
			continue;
		}
		// The table is a static object of the plugin: make its page writable for the one store.
		long page = sysconf(_SC_PAGESIZE);
		uintptr_t field = (uintptr_t)&api->PJRT_Client_Compile;
		void* start = (void*)(field & ~(uintptr_t)(page - 1));
		if (mprotect(start, field + sizeof(void*) - (uintptr_t)start, PROT_READ | PROT_WRITE) != 0) {
			*err = strdup("mprotect of the PJRT API table failed");
			free(found.paths[i]);
			return -1;
		}
		sg_apis[sg_napis] = api;
		sg_compiles[sg_napis] = api->PJRT_Client_Compile;
		((PJRT_Api*)api)->PJRT_Client_Compile = sg_hooks[sg_napis];
		paths[sg_napis] = found.paths[i];
		sg_napis++;
		added++;
	}
	return added;
}

// sg_error returns the message of e (malloc'd) and destroys e.
static char* sg_error(int slot, PJRT_Error* e) {
	const PJRT_Api* api = sg_apis[slot];
	PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE, .error = e};
	api->PJRT_Error_Message(&m);
	char* msg = strndup(m.message, m.message_size);
	PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = e};
	api->PJRT_Error_Destroy(&d);
	return msg;
}

PJRT_Error* sg_compile(int slot, PJRT_Client_Compile_Args* args) { return sg_compiles[slot](args); }

// sg_identity writes into out (malloc'd) the client's platform version and its addressable
// devices' kinds, one per line: what, beside the program, decides the compiled code.
int sg_identity(int slot, PJRT_Client* client, char** out, char** err) {
	const PJRT_Api* api = sg_apis[slot];
	PJRT_Client_PlatformVersion_Args v = {.struct_size = PJRT_Client_PlatformVersion_Args_STRUCT_SIZE,
					      .client = client};
	PJRT_Error* e = api->PJRT_Client_PlatformVersion(&v);
	if (e != NULL) {
		*err = sg_error(slot, e);
		return -1;
	}
	PJRT_Client_AddressableDevices_Args d = {.struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE,
						 .client = client};
	if ((e = api->PJRT_Client_AddressableDevices(&d)) != NULL) {
		*err = sg_error(slot, e);
		return -1;
	}
	size_t n = v.platform_version_size + 1;
	char** kinds = calloc(d.num_addressable_devices, sizeof(char*));
	size_t* sizes = calloc(d.num_addressable_devices, sizeof(size_t));
	for (size_t i = 0; i < d.num_addressable_devices; i++) {
		PJRT_Device_GetDescription_Args g = {.struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE,
						     .device = d.addressable_devices[i]};
		PJRT_DeviceDescription_Kind_Args k = {.struct_size = PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE};
		if ((e = api->PJRT_Device_GetDescription(&g)) == NULL) {
			k.device_description = g.device_description;
			e = api->PJRT_DeviceDescription_Kind(&k);
		}
		if (e != NULL) {
			free(kinds);
			free(sizes);
			*err = sg_error(slot, e);
			return -1;
		}
		kinds[i] = (char*)k.device_kind;
		sizes[i] = k.device_kind_size;
		n += sizes[i] + 1;
	}
	char* s = malloc(n + 1);
	char* p = s;
	memcpy(p, v.platform_version, v.platform_version_size);
	p += v.platform_version_size;
	*p++ = '\n';
	for (size_t i = 0; i < d.num_addressable_devices; i++) {
		memcpy(p, kinds[i], sizes[i]);
		p += sizes[i];
		*p++ = '\n';
	}
	*p = 0;
	free(kinds);
	free(sizes);
	*out = s;
	return 0;
}

// sg_serialize writes into out (malloc'd, size in n) the executable compiled into exe.
int sg_serialize(int slot, PJRT_LoadedExecutable* exe, char** out, size_t* n, char** err) {
	const PJRT_Api* api = sg_apis[slot];
	PJRT_LoadedExecutable_GetExecutable_Args g = {
	    .struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, .loaded_executable = exe};
	PJRT_Error* e = api->PJRT_LoadedExecutable_GetExecutable(&g);
	if (e != NULL) {
		*err = sg_error(slot, e);
		return -1;
	}
	PJRT_Executable_Serialize_Args s = {.struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE,
					    .executable = g.executable};
	e = api->PJRT_Executable_Serialize(&s);
	int rc = 0;
	if (e != NULL) {
		*err = sg_error(slot, e);
		rc = -1;
	} else {
		*out = malloc(s.serialized_bytes_size > 0 ? s.serialized_bytes_size : 1);
		memcpy(*out, s.serialized_bytes, s.serialized_bytes_size);
		*n = s.serialized_bytes_size;
		s.serialized_executable_deleter(s.serialized_executable);
	}
	PJRT_Executable_Destroy_Args d = {.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE,
					  .executable = g.executable};
	api->PJRT_Executable_Destroy(&d);
	return rc;
}

// sg_deserialize loads into out an executable that sg_serialize wrote, for client.
int sg_deserialize(int slot, PJRT_Client* client, const char* bytes, size_t n, PJRT_LoadedExecutable** out,
		   char** err) {
	const PJRT_Api* api = sg_apis[slot];
	PJRT_Executable_DeserializeAndLoad_Args a = {
	    .struct_size = PJRT_Executable_DeserializeAndLoad_Args_STRUCT_SIZE,
	    .client = client,
	    .serialized_executable = bytes,
	    .serialized_executable_size = n,
	};
	PJRT_Error* e = api->PJRT_Executable_DeserializeAndLoad(&a);
	if (e != NULL) {
		*err = sg_error(slot, e);
		return -1;
	}
	*out = a.loaded_executable;
	return 0;
}

// sg_memory writes into stats what XLA's buffer assignment gives the program compiled into exe,
// in bytes on its device: generated code, arguments, outputs, outputs aliased to arguments,
// temporaries and the peak (0 where the plugin does not say), and its name into name
// (malloc'd).
int sg_memory(int slot, PJRT_LoadedExecutable* exe, int64_t stats[6], char** name, char** err) {
	const PJRT_Api* api = sg_apis[slot];
	if (api->struct_size < offsetof(PJRT_Api, PJRT_Executable_GetCompiledMemoryStats) +
				   sizeof(api->PJRT_Executable_GetCompiledMemoryStats) ||
	    api->PJRT_Executable_GetCompiledMemoryStats == NULL) {
		*err = strdup("the plugin does not report a program's memory");
		return -1;
	}
	PJRT_LoadedExecutable_GetExecutable_Args g = {
	    .struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, .loaded_executable = exe};
	PJRT_Error* e = api->PJRT_LoadedExecutable_GetExecutable(&g);
	if (e != NULL) {
		*err = sg_error(slot, e);
		return -1;
	}
	PJRT_Executable_GetCompiledMemoryStats_Args m = {
	    .struct_size = PJRT_Executable_GetCompiledMemoryStats_Args_STRUCT_SIZE, .executable = g.executable};
	PJRT_Executable_Name_Args n = {.struct_size = PJRT_Executable_Name_Args_STRUCT_SIZE, .executable = g.executable};
	int rc = 0;
	if ((e = api->PJRT_Executable_GetCompiledMemoryStats(&m)) == NULL && (e = api->PJRT_Executable_Name(&n)) == NULL) {
		stats[0] = m.generated_code_size_in_bytes;
		stats[1] = m.argument_size_in_bytes;
		stats[2] = m.output_size_in_bytes;
		stats[3] = m.alias_size_in_bytes;
		stats[4] = m.temp_size_in_bytes;
		stats[5] = m.peak_memory_in_bytes;
		*name = strndup(n.executable_name, n.executable_name_size);
	} else {
		*err = sg_error(slot, e);
		rc = -1;
	}
	PJRT_Executable_Destroy_Args d = {.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE,
					  .executable = g.executable};
	api->PJRT_Executable_Destroy(&d);
	return rc;
}
