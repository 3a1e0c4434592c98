/* Stands for an installed NCCL: declares what ddplint's fallback does not. */
#pragma once
int site_nccl_build_number(void);
