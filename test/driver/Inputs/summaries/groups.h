// The project's NCCL group helpers, declared here and defined in groups.cpp.
#pragma once

void open_group();
void close_group();
