// A program whose header is missing here: confirm reports the build error.
#include <project/config.h>

int main() { return 0; }
