#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The host differential (scripts/hostdiff.sh) as a make test suite.
exec "$(dirname "$0")/../hostdiff.sh"
