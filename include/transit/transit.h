// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the whole public API.
#pragma once

#include "transit/encoding.h"
#include "transit/error.h"
#include "transit/read_handlers.h"
#include "transit/reader.h"
#include "transit/registry.h"
#include "transit/sink.h"
#include "transit/tape.h"
#include "transit/typed.h"
#include "transit/value.h"
#include "transit/write_handlers.h"
#include "transit/writer.h"
