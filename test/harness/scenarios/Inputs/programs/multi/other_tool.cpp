// Another program of the same directory: its main must not be linked into
// trainer's program.
int main() { return 0; }
