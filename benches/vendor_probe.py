#!/usr/bin/env python3
"""Vendor token probe: does warden remove tokens of known vendor formats wherever they appear?

usage: python3 benches/vendor_probe.py [WARDEN_BIN] [-p POLICY_DIR] [-v]

For each of ~90 vendor token formats (written from the vendors' documented shapes: a prefix
and a body of a given alphabet and length; no scanner's rule or test data), four random tokens
(fixed seed) are placed in four contexts: bare on a line, after `export NAME=`, in prose ("Using
credential … for the request") and as a JSON value. A token counts as missed when any 8
characters of the second half of its secret part survive. Prints the families with a miss and how many of four
contexts held. Some misses are deliberate and stay: public ids (Langfuse `pk-lf-`, Lark `cli_`,
eBay app ids), formats with no literal to anchor on (Facebook `id|secret`), two-letter prefixes
(Twilio `SK`, Vault `s.`) and fakes a validator rightly rejects (the base64 JWT).
"""
import random, string, subprocess, sys, json, collections
args = [a for a in sys.argv[1:] if not a.startswith('-')]
W = args[0] if args else 'target/release/warden'
POL = sys.argv[sys.argv.index('-p') + 1] if '-p' in sys.argv else None
if POL in args:
    args.remove(POL)
R = random.Random(11)
A = string.ascii_letters + string.digits
def r(n, cs=A): return ''.join(R.choice(cs) for _ in range(n))
H = '0123456789abcdef'; L = string.ascii_lowercase + string.digits; U = string.ascii_uppercase + string.digits
B64 = A + '+/'; URL = A + '-_'
fam = {
 'aikido_ci': lambda: 'AIK_CI_' + r(40),
 'aikido_client': lambda: 'AIK_CLIENT_' + r(24),
 'aikido_secret': lambda: 'AIK_SECRET_' + r(64),
 'alibaba_id': lambda: 'LTAI' + r(20),
 'alibaba_sts': lambda: 'STS.' + r(28),
 'artifactory': lambda: 'AKCp' + r(69),
 'asaas': lambda: '$aact_prod_' + r(60, URL),
 'atlassian': lambda: 'ATATT3xFfGF0' + r(180, URL) + '=' + r(8, U),
 'bbdc': lambda: 'BBDC-' + r(44, B64),
 'brave': lambda: 'BSA' + r(28, URL),
 'bk_pat': lambda: 'bkpat_' + r(54, URL),
 'bkua': lambda: 'bkua_' + r(40, L),
 'canva': lambda: 'cnvca' + r(51, URL),
 'cartesia': lambda: 'sk_car_' + r(20),
 'ccipat': lambda: 'CCIPAT_' + r(22) + '_' + r(40, H),
 'ccipat_prj': lambda: 'CCIPRJ_' + r(22) + '_' + r(40, H),
 'clickhouse': lambda: '4b1d' + r(38),
 'cf_token': lambda: 'cfut_' + r(40) + r(8, H),
 'cloudsmith': lambda: 'csa_' + r(30, H) + r(6),
 'astra': lambda: 'AstraCS:' + r(24) + ':' + r(64, H),
 'devcycle': lambda: 'dvc_server_' + r(32),
 'devin': lambda: 'cog_' + r(52, string.ascii_lowercase + '234567'),
 'swarm_join': lambda: 'SWMTKN-1-' + r(50, L) + '-' + r(25, L),
 'swarm_unlock': lambda: 'SWMKEY-1-' + r(43, B64),
 'ebay': lambda: 'JohnDoe-myapp-PRD-' + r(9, H) + '-' + r(8, H),
 'exoscale': lambda: 'EXO' + r(24),
 'fb': lambda: r(15, string.digits) + '|' + r(27, URL),
 'flyio': lambda: 'FlyV1 fm2_' + r(120, B64) + ',fm2_' + r(80, B64),
 'gemini_aq': lambda: 'AQ.Ab8RN6' + r(44, URL),
 'github_pat': lambda: 'github_pat_' + r(22) + '_' + r(59),
 'glrt': lambda: 'glrt-t1_' + r(27, URL) + '.01' + r(7, L),
 'gitlab_sess': lambda: '_gitlab_session=' + r(32, L),
 'langsmith': lambda: 'lsv2_pt_' + r(32, H) + '_' + r(10, H),
 'langfuse_pk': lambda: 'pk-lf-' + '-'.join(r(n, H) for n in (8,4,4,4,12)),
 'langfuse_sk': lambda: 'sk-lf-' + '-'.join(r(n, H) for n in (8,4,4,4,12)),
 'lark': lambda: 'cli_' + r(16, L),
 'lichess': lambda: 'lip_' + r(20),
 'mailersend': lambda: 'mlsn.' + r(64, H),
 'maxmind': lambda: r(6) + '_' + r(29) + '_mmk',
 'mergify': lambda: 'mergify_application_key_' + r(60, URL),
 'mdb_sa': lambda: 'mdb_sa_sk_' + r(40, URL),
 'neon': lambda: 'napi_' + r(64, L),
 'nylas': lambda: 'nyk_' + r(67),
 'onfido': lambda: 'api_live.' + r(11, URL) + '.' + r(32, URL),
 'persona': lambda: 'persona_production_' + r(36, L),
 'pinterest': lambda: 'pina_' + r(60, U),
 'posthog_phx': lambda: 'phx_' + r(47),
 'posthog_phc': lambda: 'phc_' + r(43),
 'prf': lambda: 'prf_' + r(40, URL),
 'ramp': lambda: 'ramp_sec_' + r(48),
 'render': lambda: 'rnd_' + r(28),
 'runpod': lambda: 'rpa_' + r(40, U) + r(6),
 'sf_token': lambda: '00D' + r(12) + '!' + r(96, A + '._'),
 'slack_legacy': lambda: 'xoxs-' + r(10, string.digits) + '-' + r(11, string.digits) + '-' + r(12, string.digits) + '-' + r(64, H),
 'slack_session': lambda: 'xoxc-' + r(11, string.digits) + '-' + r(12, string.digits) + '-' + r(13, string.digits) + '-' + r(64, H),
 'xapp': lambda: 'xapp-1-A' + r(10, U) + '-' + r(13, string.digits) + '-' + r(64, H),
 'settlemint': lambda: 'sm_pat_' + r(16),
 'supabase': lambda: 'sbp_' + r(40, H),
 'supabase_secret': lambda: 'sb_secret_' + r(31, URL),
 'tableau': lambda: r(22, B64) + '==:' + r(32),
 'tailscale': lambda: 'tskey-api-k' + r(10) + 'CNTRL-' + r(33),
 'tss': lambda: 'tss_' + r(40, URL),
 'twilio_sk': lambda: 'SK' + r(32, H),
 'unkey': lambda: 'unkey_' + r(24),
 'ucat': lambda: 'ucat_' + r(28),
 'valtown': lambda: 'vtwn_' + r(40, URL),
 'vercel_vck': lambda: 'vck_' + r(56, URL),
 'vercel_vcp': lambda: 'vcp_' + r(56, URL),
 'waka': lambda: 'waka_' + '-'.join(r(n, H) for n in (8,4,4,4,12)),
 'wandb_v1': lambda: 'wandb_v1_' + r(77, A + '_'),
 'xai': lambda: 'xai-' + r(80),
 'zuplo': lambda: 'zpka_' + r(32, L) + '_' + r(8, H),
 'heroku_hrku': lambda: 'HRKU-' + r(60, URL),
 'packagist': lambda: 'packagist_ort_' + r(68, H),
 'postman_pmat': lambda: 'PMAT-' + r(26, U),
 'airtable_pat': lambda: 'pat' + r(14) + '.' + r(64, H),
 'elastic_essu': lambda: 'essu_' + r(80, B64),
 'figd': lambda: 'figd_' + r(40, URL),
 'nvapi': lambda: 'nvapi-' + r(64, URL),
 'polar': lambda: 'polar_pat_' + r(40, URL),
 'samsara': lambda: 'samsara_api_' + r(30),
 'hvs': lambda: 'hvs.' + r(95, URL),
 'vault_old': lambda: 's.' + r(24),
 'rpizza': lambda: 'rpa_' + r(30),
 'apk_devin': lambda: 'apk_' + r(88, B64),
 'mercury': lambda: 'mercury_production_rma_' + r(45) + '_yrucrem',
 'wrka': lambda: 'wrka-eyJhbGciOiJSUzI1NiJ9.eyJ' + r(40, URL) + '.' + r(86, URL),
 'sidekiq': lambda: (lambda c: ('https://' + c + '@gems.contribsys.com/', c))(r(8, H) + ':' + r(8, H)),
 'slack_wh': lambda: 'https://hooks.slack.com/services/T' + r(8, U) + '/B' + r(8, U) + '/' + r(24),
 'jwt_b64': lambda: 'ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5' + r(80, B64),
 'bitbucket_url': lambda: (lambda p: ('https://jdoe:' + p + '@bitbucket.org/team/repo.git', p))(r(20)),
}
ctx = ['{v}', 'export TOKEN_VALUE={v}', 'Using credential {v} for the request', '"auth": "{v}"']
lines = []; meta = []
for k, f in fam.items():
    for c in ctx:
        v = f()
        v, secret = v if isinstance(v, tuple) else (v, v)  # (text, its secret part)
        lines.append(c.format(v=v)); meta.append((k, secret))
cmd = [W, 'redact', '--format', 'text'] + (['-p', POL] if POL else [])
out = subprocess.run(cmd, input=('\n'.join(lines) + '\n').encode(), capture_output=True, check=True).stdout.decode().splitlines()
missed = collections.defaultdict(list)
for (k, v), o in zip(meta, out):
    half = v[len(v) // 2:]
    if any(half[j:j + 8] in o for j in range(0, max(1, len(half) - 7))):
        missed[k].append(o)
print(f"families {len(fam)}, tokens {len(lines)}: missed {sum(map(len, missed.values()))} tokens, "
      f"{len(missed)} families with a miss")
for k in fam:
    if k in missed:
        print(f"{k:16} {4 - len(missed[k])}/4 held  {missed[k][0][:100]}")
        if '-v' in sys.argv:
            for x in missed[k][1:]:
                print('      ', x[:140])
