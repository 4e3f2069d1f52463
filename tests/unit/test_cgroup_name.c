/*
 * tests/unit/test_cgroup_name.c - cgroup_name() through SQL (numbers refer to
 * sqlite/cgroup_name.c): systemd units, containers under systemd and cgroupfs, Kubernetes pods,
 * plain cgroups, the root, NULL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

#define ID "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

static void test_units(void) /* (3) */
{
	Q("SELECT cgroup_name('/system.slice/nginx.service')", "nginx.service");
	Q("SELECT cgroup_name('/user.slice/user-1000.slice/user@1000.service/app.slice/"
	  "app-gnome-firefox-2345.scope')",
	  "app-gnome-firefox-2345.scope");
	Q("SELECT cgroup_name('/user.slice/user-1000.slice/session-3.scope/')", "session-3.scope");
	Q("SELECT cgroup_name('/perfsql-a')", "perfsql-a");
	Q("SELECT cgroup_name('/')", "/");
	Q("SELECT cgroup_name('')", "/");
	Q("SELECT cgroup_name(NULL)", "NULL");
}

static void test_containers(void) /* (1) */
{
	Q("SELECT cgroup_name('/system.slice/docker-" ID ".scope')", "0f1e2d3c4b5a");
	Q("SELECT cgroup_name('/docker/" ID "')", "0f1e2d3c4b5a");
	Q("SELECT cgroup_name('/system.slice/crio-" ID ".scope')", "0f1e2d3c4b5a");
	Q("SELECT cgroup_name('/machine.slice/libpod-" ID ".scope')", "0f1e2d3c4b5a");
	Q("SELECT cgroup_name('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c"
	  "_33d4.slice/cri-containerd-" ID ".scope')",
	  "0f1e2d3c4b5a");
	Q("SELECT cgroup_name('/kubepods/burstable/pod1b2c-33d4/" ID "')", "0f1e2d3c4b5a");
	/* not quite an ID: the element as it is */
	Q("SELECT cgroup_name('/system.slice/docker-0f1e.scope')", "docker-0f1e.scope");
	Q("SELECT cgroup_name('/system.slice/docker.service')", "docker.service");
}

static void test_pods(void) /* (2) */
{
	Q("SELECT cgroup_name('/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
	  "9a8b7c6d_1e2f_4a5b_8c9d_0e1f2a3b4c5d.slice')",
	  "pod 9a8b7c6d-1e2f-4a5b-8c9d-0e1f2a3b4c5d");
	Q("SELECT cgroup_name('/kubepods/burstable/pod9a8b7c6d-1e2f-4a5b-8c9d-0e1f2a3b4c5d')",
	  "pod 9a8b7c6d-1e2f-4a5b-8c9d-0e1f2a3b4c5d");
	Q("SELECT cgroup_name('/kubepods.slice/kubepods-besteffort.slice')",
	  "kubepods-besteffort.slice");
	Q("SELECT cgroup_name('/podman')", "podman");
}

int main(void)
{
	open_db();
	RUN(test_units);
	RUN(test_containers);
	RUN(test_pods);
	sqlite3_close(db);
	return t_done("cgroup_name");
}
