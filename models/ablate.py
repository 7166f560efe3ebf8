"""Ablation of models/ptx.cat (fills the rule -> tests table of models/README.md).

For each rule, a copy of ptx.cat with that rule removed is written to a temporary directory, the
whole suite is checked (smt engine by default: every suite test, ~2 s a run; ABLATE_ENGINE=enum for the
explicit engine), and the tests whose Observation (or flags) differ from the unmodified model are listed.
Usage (repository root, after building; PTXMM names the binary, default build/ptxmm):
    python3 models/ablate.py [RULE ...]
"""
import json, subprocess, sys, os, re, tempfile
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP=tempfile.mkdtemp(prefix='ptx-ablate-')
base=open(f'{ROOT}/models/ptx.cat').read()
def rm_line(s, start):  # remove the check line starting with `start`
    out=[]; hit=False
    for l in s.split('\n'):
        if l.startswith(start): hit=True; continue
        out.append(l)
    assert hit, start
    return '\n'.join(out)
def sub(s,a,b):
    assert a in s, a
    return s.replace(a,b)
abl = {
 'Coherence': lambda s: rm_line(s,'irreflexive (cause ; co) as Coherence'),
 'FenceSC': lambda s: rm_line(s,'irreflexive (hb ; fence-sc-order) as FenceSC'),
 'Atomicity': lambda s: rm_line(s,'empty rmw & ((from-reads & ms)'),
 'NoThinAir': lambda s: rm_line(s,'acyclic (addr | data | ctrl | rmw | async-data | rf | exec-order) as NoThinAir'),
 'SCPerLocation': lambda s: rm_line(s,'acyclic (po-loc-ms | (communication & ms)) as SCPerLocation'),
 'Causality': lambda s: rm_line(s,'irreflexive ((rf | from-reads) ; cause) as Causality'),
 'obs-through-RMW': lambda s: sub(s,'let observation = ms-rf ; ((rmw ; ms-rf)*)','let observation = ms-rf'),
 'sw-fence-sc': lambda s: sub(s,'let sw-fence-sc = fence-sc-order','let sw-fence-sc = 0'),
 'sw-barrier': lambda s: sub(s,'let sw-barrier = bar-sync','let sw-barrier = 0'),
 'sw-cluster-barrier': lambda s: sub(s,'let synchronizes-with = sw-fence-sc | sw-barrier | sw-cluster-barrier |','let synchronizes-with = sw-fence-sc | sw-barrier |'),
 'sw-cluster-relaxed-arrive': lambda s: sub(s,"| (([release-fence] ; po ; [CLUSTER_ARRIVE \\ F_REL] ; cluster-sync) & ms)",''),
 'sw-pattern': lambda s: sub(s,'| (sw-pattern \\ async-scope-cut)',''),
 'release-pattern-op+strong-write': lambda s: sub(s,'| ([release-op] ; (po & same-address) ; [W & STRONG])',''),
 'release-pattern-fence': lambda s: sub(s,'| ([release-fence] ; po ; [W & STRONG])',''),
 'acquire-pattern-read+acq-op': lambda s: sub(s,'| ([strong-read] ; (po & same-address) ; [acquire-op])',''),
 'acquire-pattern-fence': lambda s: sub(s,'| ([strong-read] ; po ; [acquire-fence])',''),
 'red-no-acquire(8.11.1)': lambda s: sub(s,'let reduction = RED','let reduction = {}'),
 'sync_restrict': lambda s: sub(s,'let po-sync = po \\ po-restricted','let po-sync = po'),
 'issue-in-causality': lambda s: sub(s,'let cb = hb | (hb? ; issue)','let cb = hb'),
 'async-complete-in-causality': lambda s: sub(s,'(po-sync | synchronizes-with | aso | async-complete | rmw)+','(po-sync | synchronizes-with | aso | rmw)+'),
 'ppbc(1)-generic': lambda s: sub(s,'let proxy-preserved-base-causality = ppbc-generic |','let proxy-preserved-base-causality = '),
 'ppbc(2)-same-proxy-block': lambda s: sub(s,'let ppbc-same-proxy = ([M] ; cb ; [M]) & same-proxy & scta & same-address','let ppbc-same-proxy = ([M] ; cb ; [M]) & same-proxy & scta & same-address & (GEN * GEN)'),
 'ppbc(3)-src-fence': lambda s: sub(s,'let ppbc-src-fence = (to-src-fence ; cb ; [generic]) & same-address','let ppbc-src-fence = 0'),
 'ppbc(4)-dst-fence': lambda s: sub(s,'let ppbc-dst-fence = ([generic] ; cb ; from-dst-fence) & same-address','let ppbc-dst-fence = 0'),
 'ppbc(5)-src-dst-fence': lambda s: sub(s,'let ppbc-src-dst-fence = (to-src-fence ; cb ; from-dst-fence) & same-address','let ppbc-src-dst-fence = 0'),
 'ppbc(6-9)-alias': lambda s: sub(s,'let alias-fence = PF_ALIAS','let alias-fence = {}'),
 'implicit-bulk-proxy-fence': lambda s: sub(s,'let implicit-proxy-fence = PF_ASYNC_IMPLICIT | clc-implicit-fence','let implicit-proxy-fence = clc-implicit-fence'),
 'wait_group-proxy-fence': lambda s: sub(s,'let pf-covers-src = ([bidir-proxy-fence] ; pf-covers) | pf-covers-wait','let pf-covers-src = ([bidir-proxy-fence] ; pf-covers)'),
 'clc-implicit-fence': lambda s: sub(s,'with (CLC & MB_COMPLETE_TX)','with {}'),
 'pf-cluster-locality': lambda s: sub(s,'try variant-pf-locality with scluster','try variant-pf-locality with scta'),
 'pf-state-space': lambda s: sub(s,'let pf-covers-explicit = pf-proxy & pf-space & pf-locality','let pf-covers-explicit = pf-proxy & pf-locality'),
 'proxy-synonym': lambda s: sub(s,'let same-address = vsyn','let same-address = vloc'),
 'partial-coherence': lambda s: sub(s,'let coherence = (co & (ms | cause | (IW * W)))+','let coherence = co'),
 'data-race-flag': lambda s: rm_line(s,'flag ~empty data-race as data-race'),
 'async-read-before-completion': lambda s: rm_line(s,'undefined_unless empty async-read-before-completion'),
 'async-source-write-before-completion': lambda s: rm_line(s,'undefined_unless empty async-source-write-before-completion'),
 'mbarrier-uninitialized-use': lambda s: rm_line(s,'undefined_unless empty mbarrier-uninitialized-use'),
}
PTXMM=os.environ.get('PTXMM', f'{ROOT}/build/ptxmm')
ENGINE=os.environ.get('ABLATE_ENGINE', 'smt')
def run(path, engine=ENGINE):
    out=subprocess.run([PTXMM,'check','--engine',engine,'--model',path,'--json','-j','2','--timeout','60000','litmus/'],cwd=ROOT,capture_output=True,text=True).stdout
    res={}
    for l in out.split('\n'):
        if not l.startswith('{'): continue
        try: j=json.loads(l)
        except Exception: continue
        if j.get('status')!='ok': continue
        res[j['file']]=(j['observation'], tuple(sorted(j.get('flags',[]))))
    return res
which = sys.argv[1:] or list(abl)
basep=f'{TMP}/ptx-base.cat'; open(basep,'w').write(base)
B=run(basep)
print('baseline tests', len(B))
for k in which:
    p=f'{TMP}/ptx-no-{re.sub("[^A-Za-z0-9]+","_",k)}.cat'
    open(p,'w').write(abl[k](base))
    A=run(p)
    ver=[f for f in B if f in A and A[f][0]!=B[f][0]]
    flg=[f for f in B if f in A and A[f][0]==B[f][0] and A[f][1]!=B[f][1]]
    miss=[f for f in B if f not in A]
    print(f'## {k}: verdict-changes {len(ver)} flag-changes {len(flg)} errors {len(miss)}')
    for f in ver: print('  V', f.replace('litmus/',''), B[f][0], '->', A[f][0])
    for f in flg: print('  F', f.replace('litmus/',''), ','.join(B[f][1]), '->', ','.join(A[f][1]))
    for f in miss[:3]: print('  E', f)
    sys.stdout.flush()
