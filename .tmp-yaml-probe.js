const {parseDocument} = require('yaml');
const size = +process.argv[2];
const big = 'title: "' + 'x'.repeat(size) + '"\n'; let t0=Date.now();
try { const d = parseDocument(big, {prettyErrors:true, uniqueKeys:true}); console.log(d.errors.length); d.toJS(); } catch(e) { console.log('threw', e.message.slice(0,80)); }
console.log('big', size, Date.now()-t0);
