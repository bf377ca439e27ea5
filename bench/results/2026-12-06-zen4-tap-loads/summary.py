import json,sys,glob,collections,statistics
d=collections.defaultdict(list)
for f in glob.glob(sys.argv[1]+'/*.json'):
    isa,slow,_=f.split('/')[-1].split('.')[:3]
    for b in json.load(open(f))['benchmarks']:
        if b.get('aggregate_name')=='median':
            d[(isa,b['run_name'],slow)].append(b['real_time']/1e6 if b['time_unit']=='ns' else b['real_time'])
rows=sorted(set((k[0],k[1]) for k in d))
for isa,name in rows:
    g=d.get((isa,name,'slow0'),[]); l=d.get((isa,name,'slow1'),[])
    if not g or not l: continue
    mg,ml=statistics.median(g),statistics.median(l)
    print(f"{isa:7s} {name:45s} gathers {mg:8.3f}  loads {ml:8.3f}  {mg/ml:5.2f}x   {['%.2f'%x for x in g]} {['%.2f'%x for x in l]}")
