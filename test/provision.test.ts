/**
 * test/tools/provision.sh, which `npm test` runs first: with every tool present it is silent; as
 * root on a Debian machine it runs `apt-get update` once and installs what is missing; where it
 * may not install (not root and no passwordless sudo, or no apt-get) it stops at once with the one
 * command to run. Run against stand-ins for apt-get, id and sudo on a PATH of their own, so the
 * test changes nothing on the machine.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./tools/provision.sh', import.meta.url));
const BASH = '/bin/bash';
/** What the script itself calls, from the real system. */
const REAL = ['mktemp', 'tail', 'rm', 'env', 'cat', 'touch', 'chmod'];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface World {
  root: boolean;
  sudo?: boolean;
  aptGet?: 'works' | 'fails' | 'absent';
  /** Tools present before the script runs. */
  present: ('promtool' | 'prometheus' | 'chromium' | 'amtool' | 'alertmanager' | 'iptables')[];
}

function script(path: string, body: string): void {
  writeFileSync(path, `#!${BASH}\n${body}\n`);
  chmodSync(path, 0o755);
}

/** Runs the script in a made-up machine; returns its exit status, stderr and the apt-get calls. */
function provision(world: World) {
  const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-provision-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  const tools = join(dir, 'tools');
  mkdirSync(bin);
  mkdirSync(tools);
  for (const name of REAL) {
    const found = spawnSync(BASH, ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(bin, name));
  }
  const paths = {
    promtool: join(tools, 'promtool'),
    prometheus: join(tools, 'prometheus'),
    chromium: join(tools, 'chromium'),
    amtool: join(tools, 'amtool'),
    alertmanager: join(tools, 'prometheus-alertmanager'),
    iptables: join(tools, 'iptables'),
  };
  for (const t of world.present) script(paths[t], 'exit 0');
  script(join(bin, 'id'), `[ "$1" = -u ] && echo ${world.root ? 0 : 1000}`);
  if (world.sudo) script(join(bin, 'sudo'), '[ "$1" = -n ] && shift; "$@"');
  const log = join(dir, 'apt-get.log');
  if ((world.aptGet ?? 'works') !== 'absent') {
    // Installing a package puts its binaries where the suite looks for them.
    const provides = `case "$p" in prometheus) touch ${paths.promtool} ${paths.prometheus}; chmod +x ${paths.promtool} ${paths.prometheus};; chromium) touch ${paths.chromium}; chmod +x ${paths.chromium};; prometheus-alertmanager) touch ${paths.amtool} ${paths.alertmanager}; chmod +x ${paths.amtool} ${paths.alertmanager};; iptables) touch ${paths.iptables}; chmod +x ${paths.iptables};; esac`;
    script(
      join(bin, 'apt-get'),
      `echo "$* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >> ${log}\n${world.aptGet === 'fails' ? 'echo "E: Unable to locate package" >&2; exit 100' : `if [ "$1" = install ]; then for p in "$@"; do ${provides}; done; fi`}`,
    );
  }
  const env = {
    PATH: bin,
    PROMTOOL: paths.promtool,
    PROMETHEUS: paths.prometheus,
    CHROMIUM_PATH: paths.chromium,
    AMTOOL: paths.amtool,
    ALERTMANAGER: paths.alertmanager,
    IPTABLES: paths.iptables,
  };
  const r = spawnSync(BASH, [SCRIPT], { env, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, apt: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [] };
}

describe('npm test provisioning (test/tools/provision.sh)', () => {
  it('with every tool present, says nothing and installs nothing', () => {
    const r = provision({ root: true, present: ['promtool', 'prometheus', 'chromium', 'amtool', 'alertmanager', 'iptables'] });
    expect(r).toMatchObject({ status: 0, stderr: '', stdout: '', apt: [] });
  });

  it('as root on Debian: apt-get update once, then installs exactly the missing packages', () => {
    const r = provision({ root: true, present: ['promtool', 'prometheus'] });
    expect(r.status).toBe(0);
    expect(r.apt).toEqual([
      'update -qq (DEBIAN_FRONTEND=noninteractive)',
      'install -y -qq chromium prometheus-alertmanager iptables (DEBIAN_FRONTEND=noninteractive)',
    ]);
    expect(r.stderr).toContain('Installed chromium prometheus-alertmanager iptables.');
  });

  it('with passwordless sudo, installs through it', () => {
    const r = provision({ root: false, sudo: true, present: ['chromium', 'amtool', 'alertmanager', 'iptables'] });
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['update -qq (DEBIAN_FRONTEND=noninteractive)', 'install -y -qq prometheus (DEBIAN_FRONTEND=noninteractive)']);
  });

  it('not root and no sudo: stops at once with the one command to run', () => {
    const t0 = Date.now();
    const r = provision({ root: false, present: ['promtool', 'prometheus', 'iptables'] });
    expect(r.status).toBe(1);
    expect(r.apt).toEqual([]);
    expect(r.stderr).toContain("the suite needs Debian's chromium, prometheus-alertmanager, which this machine lacks");
    expect(r.stderr).toContain("  sudo sh -c 'apt-get update && apt-get install -y chromium prometheus-alertmanager'");
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('no apt-get: stops at once and names what to install or point at', () => {
    const r = provision({ root: true, aptGet: 'absent', present: [] });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('This is not a Debian/Ubuntu machine');
    expect(r.stderr).toContain('PROMTOOL, PROMETHEUS, AMTOOL, ALERTMANAGER, CHROMIUM_PATH and IPTABLES');
  });

  it('apt-get failing: shows its output and the command to run, exit 1', () => {
    const r = provision({ root: true, aptGet: 'fails', present: ['promtool', 'prometheus', 'amtool', 'alertmanager', 'iptables'] });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('E: Unable to locate package');
    expect(r.stderr).toContain("  sudo sh -c 'apt-get update && apt-get install -y chromium'");
  });
});
