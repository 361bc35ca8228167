// Placeholder until the list codec lands.
#pragma once
