#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its rates and ping delays are the assertions.
# Autorate end to end (issue 13), uploads: the egress instance follows a step of the
# uplink 30 -> 6 Mbit/s, against a wireguard-go and a cakewg server (lib-autorate.sh has
# the case and its assertions).
DIR=up
source "$(dirname "$0")/lib-autorate.sh"

run_case wggo
run_case cakewg
finish
