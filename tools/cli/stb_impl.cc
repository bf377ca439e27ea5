// The one translation unit that compiles stb_image_write and stb_easy_font (Debian's
// libstb-dev ships them as single headers). Built without the project's warning flags.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#include <stb/stb_easy_font.h>

int gridops_stb_easy_font_print(float x, float y, char* text, unsigned char color[4], void* buf, int size) {
  return stb_easy_font_print(x, y, text, color, buf, size);
}
