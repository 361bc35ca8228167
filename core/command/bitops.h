// Bit operations on byte strings (SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD), pure.
#pragma once
