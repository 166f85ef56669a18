/* gpu_snapshot.c - see gpu_state.h. */
#include "gpu_state.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The few NVML entry points used, declared here (nvml.h need not be
 * installed): nvmlReturn_t is an int (0 = success), nvmlDevice_t a pointer. */
typedef int nvml_init_fn(void);
typedef int nvml_handle_fn(unsigned index, void **device);
typedef int nvml_clock_fn(void *device, int type, unsigned *mhz);
typedef int nvml_power_fn(void *device, unsigned *milliwatts);
typedef int nvml_temp_fn(void *device, int sensor, unsigned *celsius);
enum { NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };

static struct {
    int tried;
    void *device;
    nvml_clock_fn *clock;
    nvml_power_fn *power;
    nvml_temp_fn *temp;
} nvml;

static gpu_snapshot marked;
static int have_mark;

/* dlsym's object pointer into a function pointer, as POSIX allows. */
static int symbol(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(fn, &p, size);
    return 1;
}

static unsigned visible_index(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    char *end;
    if (!v || *v < '0' || *v > '9')
        return 0;
    unsigned long i = strtoul(v, &end, 10);
    return (*end == '\0' || *end == ',') && i < 64 ? (unsigned)i : 0;
}

static void load(void)
{
    nvml.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    nvml_init_fn *init;
    nvml_handle_fn *handle;
    if (!symbol(lib, "nvmlInit_v2", &init, sizeof init) ||
        !symbol(lib, "nvmlDeviceGetHandleByIndex_v2", &handle, sizeof handle) ||
        !symbol(lib, "nvmlDeviceGetClockInfo", &nvml.clock, sizeof nvml.clock) ||
        !symbol(lib, "nvmlDeviceGetPowerUsage", &nvml.power, sizeof nvml.power) ||
        !symbol(lib, "nvmlDeviceGetTemperature", &nvml.temp, sizeof nvml.temp) || init() != 0 ||
        handle(visible_index(), &nvml.device) != 0)
        nvml.device = NULL; /* the library stays loaded: NVML is not shut down mid-process */
}

gpu_snapshot gpu_state_now(void)
{
    gpu_snapshot s = {0};
    if (!nvml.tried)
        load();
    unsigned mw;
    if (nvml.device && nvml.clock(nvml.device, NVML_CLOCK_SM, &s.sm_mhz) == 0 && nvml.power(nvml.device, &mw) == 0 &&
        nvml.temp(nvml.device, NVML_TEMPERATURE_GPU, &s.temp_c) == 0) {
        s.ok = 1;
        s.power_w = mw / 1000.0;
    }
    return s;
}

void gpu_state_mark_start(void)
{
    marked = gpu_state_now();
    have_mark = 1;
}

int gpu_state_take_start(gpu_snapshot *s)
{
    int had = have_mark;
    *s = marked;
    have_mark = 0;
    return had;
}
