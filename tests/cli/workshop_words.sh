#!/usr/bin/env bash
# Words from the project's workshop never reach a user: no string the app shows (a string literal in app/, widgets/ or
# core/, outside comments) and no text of an asset (scenarios' _about, sources, lesson captions) names a seed lesson by
# number, an issue, an internal document (published.md) or a folder outside the repository. Cite the published source.
set -u
binary="$1"
source_dir="$2"
cd "$source_dir" || exit 1
python3 - <<'PY'
import re, json, os, sys
pat = re.compile(r"[Ss]eeds? ?0[0-9]{2}|[Ss]eed lessons?\b|[Ii]ssue [0-9]+|published\.md|seeds/|\bshared/")
hits = []
def strip_comments(src):
    out=[]; i=0; n=len(src); 
    while i<n:
        if src.startswith('//',i):
            j=src.find('\n',i); i = n if j<0 else j
        elif src.startswith('/*',i):
            j=src.find('*/',i+2); i = n if j<0 else j+2
        elif src[i]=='"' or (src.startswith('R"',i)):
            if src.startswith('R"',i):
                m=re.match(r'R"([^(]*)\(',src[i:]); d=m.group(1); end=src.find(')'+d+'"',i); out.append(src[i:end+len(d)+2]); i=end+len(d)+2
            else:
                j=i+1
                while j<n and src[j]!='"':
                    j+= 2 if src[j]=='\\' else 1
                out.append(src[i:j+1]); i=j+1
        elif src[i]=="'":
            j=i+1
            while j<n and src[j]!="'":
                j+= 2 if src[j]=='\\' else 1
            i=j+1
        else: i+=1
    return out
for root in ['app','widgets','core']:
    for dp,_,fs in os.walk(root):
        for f in fs:
            if f.endswith(('.cpp','.h')):
                p=os.path.join(dp,f); src=open(p).read()
                for lit in strip_comments(src):
                    if pat.search(lit): hits.append((p, lit[:120]))
def walk(v, p, path=''):
    if isinstance(v,str):
        if pat.search(v): hits.append((p+':'+path, v[:120]))
    elif isinstance(v,dict):
        for k,x in v.items(): walk(x,p,path+'.'+k)
    elif isinstance(v,list):
        for i,x in enumerate(v): walk(x,p,path+'[%d]'%i)
for dp,_,fs in os.walk('assets'):
    for f in fs:
        if f.endswith('.json'):
            p=os.path.join(dp,f); walk(json.load(open(p)),p)
for h in hits: print("FAIL: workshop words in", h[0] + ":", h[1])
sys.exit(1 if hits else 0)
PY
status=$?
[ "$status" -eq 0 ] && echo "workshop words: none in what the app shows"
exit "$status"
