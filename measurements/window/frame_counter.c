// LD_PRELOAD shim: counts glfwSwapBuffers calls (one per frame drawn) and writes the count to $FRAME_COUNT_FILE at
// each call, so a script can read how many frames the window drew over an interval without touching the app.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long frames;

void glfwSwapBuffers(void* window) {
    static void (*real)(void*) = 0;
    if (!real) real = (void (*)(void*))dlsym(RTLD_NEXT, "glfwSwapBuffers");
    real(window);
    ++frames;
    const char* path = getenv("FRAME_COUNT_FILE");
    if (!path) return;
    FILE* file = fopen(path, "w");
    if (!file) return;
    fprintf(file, "%lu\n", frames);
    fclose(file);
}
