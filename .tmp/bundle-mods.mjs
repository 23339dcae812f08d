import { rolldown } from "rolldown";
const ENTRY = "/work/main/dist/session/index.js";
const b = await rolldown({ input: "virtual", platform: "browser", plugins:[{name:"v", resolveId(id){ if(id==="virtual") return id; }, load(id){ if(id==="virtual") return `export * from ${JSON.stringify(ENTRY)};`; }}]});
const { output } = await b.generate({ minify: true, format: "esm" });
const byName = new Map(output.filter(c=>c.type==="chunk").map(c=>[c.fileName,c]));
const entry = output.find(c => c.type==="chunk" && c.isEntry);
const seen=new Set(); const stack=[entry];
while(stack.length){const c=stack.pop(); if(seen.has(c)) continue; seen.add(c); for(const i of c.imports){stack.push(byName.get(i));}}
const rows=[]; for(const c of seen) for(const [id,m] of Object.entries(c.modules)) rows.push([m.renderedLength,id.replace("/work/main/dist/","")]);
rows.sort((a,b)=>b[0]-a[0]);
let total=0; for (const [n] of rows) total+=n;
console.log("total", total, "chunks", seen.size);
const byDir={}; for (const [n,id] of rows){ const d=id.split("/").slice(0,2).join("/"); byDir[d]=(byDir[d]||0)+n; }
console.log(Object.entries(byDir).sort((a,b)=>b[1]-a[1]));
console.log(rows.slice(0,60).map(r=>r.join(" ")).join("\n"));
